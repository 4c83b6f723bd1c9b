import { useCallback, useEffect, useRef, useState } from 'react';
import type { TopUpPlans } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { listTopUps } from '../../shop-client/shop.ts';
import { useVisitorCurrency } from '../currency/use-visitor-currency.ts';
import type { TopUpListMessages } from './my-esims-messages.ts';

export type TopUpPlansState = { status: 'idle' | 'loading' } | { status: 'failed'; text: string } | { status: 'ready'; answer: TopUpPlans };

/**
 * An eSIM's top-ups from the shop API (GET /esims/{id}/top-ups), loaded when `load` is called, or
 * at once with `immediately`: My eSIMs' top-up offer when opened, checkout with only ?topUp= at
 * once. They are priced in the visitor's currency (issue 34), and loaded again in a currency
 * picked once they were asked for. An eSIM that cannot be topped up (or is not the buyer's) says
 * so instead of a server error.
 */
export function useTopUpPlans(esimId: string, locale: Locale, m: TopUpListMessages, immediately = false): [TopUpPlansState, () => void] {
  const currency = useVisitorCurrency(locale);
  const [plans, setPlans] = useState<TopUpPlansState>({ status: 'idle' });
  // Only the last request's answer is shown: an earlier one may be in the currency left behind.
  const latest = useRef(0);
  const asked = useRef(false);
  const load = useCallback(() => {
    asked.current = true;
    const request = ++latest.current;
    setPlans({ status: 'loading' });
    listTopUps(esimId, locale, currency).then(
      (answer) => {
        if (request === latest.current) setPlans({ status: 'ready', answer });
      },
      (error: unknown) => {
        if (request !== latest.current) return;
        setPlans({
          status: 'failed',
          text:
            error instanceof ShopError && (error.kind === 'cannotTopUp' || error.kind === 'notFound')
              ? m.cannotTopUp
              : shopErrorText(error, m),
        });
      },
    );
  }, [esimId, locale, currency, m]);
  useEffect(() => {
    if (immediately || asked.current) load();
  }, [load, immediately]);
  return [plans, load];
}

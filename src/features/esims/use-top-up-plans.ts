import { useCallback, useState } from 'react';
import type { TopUpPlans } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { listTopUps } from '../../shop-client/shop.ts';
import type { TopUpListMessages } from './my-esims-messages.ts';

export type TopUpPlansState = { status: 'idle' | 'loading' } | { status: 'failed'; text: string } | { status: 'ready'; answer: TopUpPlans };

/**
 * An eSIM's top-ups from the shop API (GET /esims/{id}/top-ups), loaded when `load` is called:
 * My eSIMs' top-up offer when opened, checkout with only ?topUp= at once. An eSIM that cannot be
 * topped up (or is not the buyer's) says so instead of a server error.
 */
export function useTopUpPlans(esimId: string, locale: Locale, m: TopUpListMessages): [TopUpPlansState, () => void] {
  const [plans, setPlans] = useState<TopUpPlansState>({ status: 'idle' });
  const load = useCallback(() => {
    setPlans({ status: 'loading' });
    listTopUps(esimId, locale).then(
      (answer) => setPlans({ status: 'ready', answer }),
      (error: unknown) =>
        setPlans({
          status: 'failed',
          text:
            error instanceof ShopError && (error.kind === 'cannotTopUp' || error.kind === 'notFound')
              ? m.cannotTopUp
              : shopErrorText(error, m),
        }),
    );
  }, [esimId, locale, m]);
  return [plans, load];
}

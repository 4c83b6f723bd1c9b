import { useId, useState } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import type { TopUpPlan } from '../../contract/shop-api.ts';
import { checkoutUrl } from '../checkout/plan-data.ts';
import { formatDataAmount, formatPrice, formatValidity } from '../../lib/format.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { listTopUps } from '../../shop-client/shop.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import RetryButton from '../../ui/RetryButton.tsx';
import type { TopUpOfferMessages } from './my-esims-messages.ts';

interface Props {
  esimId: string;
  locale: Locale;
  checkoutPath: string;
  messages: TopUpOfferMessages;
}

type Plans = { status: 'closed' | 'loading' } | { status: 'failed'; text: string } | { status: 'ready'; plans: TopUpPlan[] };

/**
 * 'Top up' on an installed, valid eSIM (issue 15 item 6): the plans that can top it up, asked
 * for when opened, each a link to the same checkout with the eSIM (?plan=…&topUp=…).
 */
export default function TopUpOffer({ esimId, locale, checkoutPath, messages: m }: Props) {
  const panelId = useId();
  const [plans, setPlans] = useState<Plans>({ status: 'closed' });
  const [open, setOpen] = useState(false);

  function load() {
    setPlans({ status: 'loading' });
    listTopUps(esimId, locale).then(
      (answer) => setPlans({ status: 'ready', plans: answer.plans }),
      (error: unknown) =>
        setPlans({
          status: 'failed',
          text: error instanceof ShopError && error.kind === 'cannotTopUp' ? m.cannotTopUp : shopErrorText(error, m),
        }),
    );
  }

  function toggle() {
    setOpen(!open);
    // Loaded once; a failed load is tried again on opening.
    if (!open && (plans.status === 'closed' || plans.status === 'failed')) load();
  }

  return (
    <div data-top-up>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={toggle}
        className="rounded-full bg-brand px-4 py-2 text-sm font-semibold text-brand-ink"
        data-top-up-toggle
      >
        {m.topUp}
      </button>
      <div id={panelId} hidden={!open} className="mt-3">
        {plans.status === 'loading' && <LoadingStatus>{m.topUpLoading}</LoadingStatus>}
        {plans.status === 'failed' && (
          <div role="alert" className="rounded-xl bg-surface-muted p-4" data-top-up-error>
            <p>{plans.text}</p>
            <RetryButton label={m.retry} onRetry={load} />
          </div>
        )}
        {plans.status === 'ready' &&
          (plans.plans.length === 0 ? (
            <p className="text-ink-muted" data-top-up-none>
              {m.topUpNone}
            </p>
          ) : (
            <>
              <h3 className="font-semibold">{m.topUpHeading}</h3>
              <ul className="mt-2 space-y-2" data-top-up-plans>
                {plans.plans.map((plan) => (
                  <li key={plan.id}>
                    <a
                      href={checkoutUrl(checkoutPath, plan.id, esimId)}
                      className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 rounded-xl border border-line px-4 py-3 hover:border-brand"
                      data-top-up-plan={plan.id}
                    >
                      <span className="font-semibold">
                        {formatDataAmount(plan.dataAmount, locale)} · {formatValidity(plan.validity, plan.validityUnit, locale)}
                      </span>
                      <span className="font-bold">{formatPrice(plan.price, locale)}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </>
          ))}
      </div>
    </div>
  );
}

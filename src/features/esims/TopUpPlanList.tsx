import type { Locale } from '../../i18n/locales.ts';
import { checkoutUrl } from '../checkout/plan-data.ts';
import { formatDataAmount, formatPrice, formatValidity } from '../../lib/format.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import type { TopUpListMessages } from './my-esims-messages.ts';
import type { TopUpPlansState } from './use-top-up-plans.ts';

interface Props {
  plans: TopUpPlansState;
  esimId: string;
  locale: Locale;
  checkoutPath: string;
  messages: TopUpListMessages;
  onRetry: () => void;
}

/** An eSIM's top-ups as they load (useTopUpPlans), each a link to checkout with the top-up and the eSIM (?plan=…&topUp=…). */
export default function TopUpPlanList({ plans, esimId, locale, checkoutPath, messages: m, onRetry }: Props) {
  if (plans.status === 'loading') return <LoadingStatus>{m.topUpLoading}</LoadingStatus>;
  if (plans.status === 'failed') return <LoadFailed text={plans.text} retryLabel={m.retry} onRetry={onRetry} data-top-up-error />;
  if (plans.status !== 'ready') return null;
  if (plans.answer.plans.length === 0)
    return (
      <p className="text-ink-muted" data-top-up-none>
        {m.topUpNone}
      </p>
    );
  return (
    <ul className="mt-2 space-y-2" data-top-up-plans>
      {plans.answer.plans.map((plan) => (
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
  );
}

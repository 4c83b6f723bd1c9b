import { useStore } from '@nanostores/react';
import { checkoutUrl } from '../checkout/plan-data.ts';
import type { PlanView } from './plans.ts';
import { $selectedPlanId } from './selection.ts';

interface Props {
  /** Only what the bar shows: the page's HTML carries the island's props. */
  plans: Pick<PlanView, 'id' | 'summary' | 'validity' | 'price'>[];
  /** The localized /checkout; the chosen plan goes along as ?plan={id}. */
  checkoutPath: string;
  messages: { selectedPlan: string; noSelection: string; checkout: string; priceSoon: string };
}

/** The bar above the bottom navigation: the selected plan, its price and Checkout, disabled without a price. */
export default function CheckoutBar({ plans, checkoutPath, messages }: Props) {
  const selectedId = useStore($selectedPlanId);
  const plan = plans.find((p) => p.id === selectedId);
  const canCheckout = plan?.price !== undefined;
  return (
    <div className="fixed inset-x-0 bottom-16 z-10 border-t border-line bg-surface/95 px-4 py-3 backdrop-blur">
      <div className="mx-auto flex max-w-5xl items-center justify-between gap-4">
        <div aria-live="polite" className="min-w-0">
          {plan ? (
            <>
              <p className="text-xs text-ink-muted">{messages.selectedPlan}</p>
              <p className="font-semibold" data-selected-plan>
                {plan.summary} · {plan.validity}
              </p>
              <p className={plan.price ? 'font-bold text-brand' : 'text-sm text-brand'} data-selected-price>
                {plan.price ?? messages.priceSoon}
              </p>
            </>
          ) : (
            <p className="text-sm text-ink-muted">{messages.noSelection}</p>
          )}
        </div>
        <button
          type="button"
          disabled={!canCheckout}
          onClick={() => plan && window.location.assign(checkoutUrl(checkoutPath, plan.id))}
          className="shrink-0 rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink disabled:cursor-not-allowed disabled:opacity-50"
        >
          {messages.checkout}
        </button>
      </div>
    </div>
  );
}

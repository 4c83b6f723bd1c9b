import { useStore } from '@nanostores/react';
import { useState } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import { useShownCurrency } from '../currency/use-shown-currency.ts';
import { PLAN_ORDERS, sortPlans, type PlanOrder, type PlanView } from './plans.ts';
import { $selectedPlanId, togglePlan } from './selection.ts';

interface Props {
  /** The cards' text; the one-line summary is the checkout bar's. */
  plans: Omit<PlanView, 'summary'>[];
  /** The page's language: its currency until the visitor's is known. */
  locale: Locale;
  messages: { label: string; priceSoon: string; sortLabel: string; sort: Record<PlanOrder, string> };
}

/**
 * Plan cards as toggle buttons: at most one pressed; pressing it again releases it. A sort
 * control reorders them by price; the selection is by id, so it survives the reordering.
 */
export default function PlanGrid({ plans, locale, messages }: Props) {
  const selectedId = useStore($selectedPlanId);
  const currency = useShownCurrency(locale);
  const [order, setOrder] = useState<PlanOrder>('default');
  const canSort = plans.filter((plan) => plan.amounts).length > 1;
  return (
    <>
      {canSort && (
        <div className="mb-3 flex items-center justify-end gap-2 text-sm">
          <label htmlFor="plan-order">{messages.sortLabel}</label>
          <select
            id="plan-order"
            value={order}
            onChange={(event) => setOrder(event.target.value as PlanOrder)}
            className="rounded-lg border border-line bg-surface px-2 py-1"
          >
            {PLAN_ORDERS.map((value) => (
              <option key={value} value={value}>
                {messages.sort[value]}
              </option>
            ))}
          </select>
        </div>
      )}
      <ul aria-label={messages.label} className="grid gap-3 sm:grid-cols-2">
        {sortPlans(plans, order, currency).map((plan) => {
          const selected = plan.id === selectedId;
          const price = plan.prices?.[currency];
          return (
            <li key={plan.id}>
              <button
                type="button"
                aria-pressed={selected}
                data-plan-id={plan.id}
                onClick={() => togglePlan(plan.id)}
                className="flex w-full flex-col items-start gap-1 rounded-2xl border-2 border-line bg-surface p-4 text-start aria-pressed:border-brand aria-pressed:bg-surface-muted"
              >
                <span className="flex w-full items-center justify-between gap-2">
                  <span className="text-2xl font-bold">{plan.data}</span>
                  <span
                    aria-hidden="true"
                    className={`size-5 rounded-full border-2 ${selected ? 'border-brand bg-brand' : 'border-line'}`}
                  />
                </span>
                {plan.limit && (
                  <span className="text-sm font-medium" data-plan-limit>
                    {plan.limit}
                  </span>
                )}
                <span className="font-medium">{plan.validity}</span>
                <span className="text-sm text-ink-muted">{plan.countries}</span>
                {plan.facts.length > 0 && (
                  <span className="text-sm text-ink-muted" data-plan-facts>
                    {plan.facts.join(' · ')}
                  </span>
                )}
                <span className={`mt-1 text-brand ${price ? 'text-lg font-bold' : 'text-sm font-semibold'}`} data-plan-price>
                  {price ?? messages.priceSoon}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </>
  );
}

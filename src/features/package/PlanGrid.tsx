import { useStore } from '@nanostores/react';
import type { PlanView } from './plans.ts';
import { $selectedPlanId, togglePlan } from './selection.ts';

interface Props {
  plans: PlanView[];
  label: string;
  priceSoon: string;
}

/** Plan cards as toggle buttons: at most one pressed; pressing it again releases it. */
export default function PlanGrid({ plans, label, priceSoon }: Props) {
  const selectedId = useStore($selectedPlanId);
  return (
    <ul aria-label={label} className="grid gap-3 sm:grid-cols-2">
      {plans.map((plan) => {
        const selected = plan.id === selectedId;
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
              <span className="font-medium">{plan.validity}</span>
              <span className="text-sm text-ink-muted">{plan.countries}</span>
              <span className="mt-1 text-sm font-semibold text-brand">{plan.price ?? priceSoon}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

import type { EsimView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDataAmount, formatValidity } from '../../lib/format.ts';

/** An eSIM's plan in one line ('3 GB data plan, 15 days'): in My eSIMs and on a traveller's page. */
export default function PlanLine({ plan, locale, template }: { plan: EsimView['plan']; locale: Locale; template: string }) {
  return (
    <p className="mt-1" data-plan>
      {fill(template, {
        data: formatDataAmount(plan.metadata.dataAmount, locale),
        validity: formatValidity(plan.validity, plan.validityUnit, locale),
      })}
    </p>
  );
}

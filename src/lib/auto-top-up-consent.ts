import type { Price } from '../catalogue/schema.ts';
import type { TopUpPlan } from '../contract/shop-api.ts';
import { fill } from '../i18n/fill.ts';
import type { Locale } from '../i18n/locales.ts';
import { formatDataAmount, formatPrice, formatValidity, majorUnits } from './format.ts';

/** The consent's templates (locales/<lang>/esims.json autoTopUp). */
export interface ConsentTemplates {
  consent: string;
  consentPackage: string;
  consentCheapest: string;
}

/** A top-up as the buyer reads it: '1 GB, 7 days'. */
export const topUpText = (plan: Pick<TopUpPlan, 'dataAmount' | 'validity' | 'validityUnit'>, locale: Locale) =>
  `${formatDataAmount(plan.dataAmount, locale)}, ${formatValidity(plan.validity, plan.validityUnit, locale)}`;

/**
 * The automatic top-ups' consent for these choices (issue 49), in one place: the page shows it by
 * the tick box, and the shop API stores exactly these words with the setting, so what the buyer
 * agreed to is what they read. `choice`: the top-up chosen; none, the cheapest offered then.
 */
export function consentText(
  templates: ConsentTemplates,
  locale: Locale,
  choice: Pick<TopUpPlan, 'dataAmount' | 'validity' | 'validityUnit' | 'price'> | undefined,
  maxCount: number,
  cap: Price,
): string {
  const pkg = choice
    ? fill(templates.consentPackage, { plan: topUpText(choice, locale), price: formatPrice(choice.price, locale) })
    : templates.consentCheapest;
  return fill(templates.consent, { package: pkg, count: String(maxCount), cap: formatPrice(cap, locale) });
}

/** An amount typed in major units ('12,50', '12.5') in minor units of the currency; NaN when it is none. */
export function typedMinor(typed: string, currency: string): number {
  const value = Number(typed.trim().replace(',', '.'));
  const minorPerMajor = 1 / majorUnits({ amountMinor: 1, currency });
  return typed.trim() === '' || !Number.isFinite(value) ? NaN : Math.round(value * minorPerMajor);
}

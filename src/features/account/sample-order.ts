import { SAMPLE_CHECKOUT } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatPrice, formatValidity, formatDataAmount } from '../package/plans.ts';

/** The static sample figures of payment success (spec 2 and 9), formatted; checkout shows the chosen plan. */
export function sampleOrder(locale: Locale) {
  const money = (amountMinor: number) => formatPrice({ amountMinor, currency: SAMPLE_CHECKOUT.currency }, locale);
  return {
    data: formatDataAmount({ value: SAMPLE_CHECKOUT.dataGigabytes, unit: 'GB' }, locale),
    validity: formatValidity(SAMPLE_CHECKOUT.validityDays, 'day', locale),
    subtotal: money(SAMPLE_CHECKOUT.priceMinor),
    taxes: money(SAMPLE_CHECKOUT.taxesMinor),
    total: money(SAMPLE_CHECKOUT.totalMinor),
    orderId: SAMPLE_CHECKOUT.orderId,
  };
}

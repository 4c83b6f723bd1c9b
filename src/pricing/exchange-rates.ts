import { z } from 'zod';
import { BASE_CURRENCY, CURRENCIES, MAX_RATE_AGE_DAYS, RATE_BAND, type Currency } from '../config/currencies.ts';

/** Units of each listed currency per euro (the euro itself is 1 and not listed). */
const PerEuro = z.object(
  Object.fromEntries(CURRENCIES.filter((c) => c !== BASE_CURRENCY).map((c) => [c, z.number().positive()])) as Record<
    Exclude<Currency, typeof BASE_CURRENCY>,
    z.ZodNumber
  >,
);
export type PerEuro = z.infer<typeof PerEuro>;

/** The exchange rates a snapshot's prices rest on (issue 34): the ECB's, dated, and the ones the prices use. */
export const ExchangeRates = z.object({
  /** Where the rates were read: the ECB's daily XML, or the stand-in's. */
  source: z.string().min(1),
  /** The ECB's reference day (`Cube time`). */
  date: z.iso.date(),
  /** As the ECB published them that day. */
  published: PerEuro,
  /** What the prices use: a published rate, or an earlier one while the published stays within the band (rate-band.ts). */
  applied: PerEuro,
});
export type ExchangeRates = z.infer<typeof ExchangeRates>;

/** Units of `currency` per euro (1 for the euro). */
export function perEuro(rates: PerEuro, currency: Currency): number {
  return currency === BASE_CURRENCY ? 1 : rates[currency];
}

/**
 * The rates the prices use (no page shows a new price every day): a currency keeps the previous
 * snapshot's applied rate while the newly published one is within `band` of it, else takes the new one.
 */
export function applyRateBand(published: PerEuro, previous: PerEuro | undefined, band = RATE_BAND): PerEuro {
  return Object.fromEntries(
    Object.entries(published).map(([currency, rate]) => {
      const before = previous?.[currency as keyof PerEuro];
      return [currency, before !== undefined && Math.abs(rate / before - 1) <= band ? before : rate];
    }),
  ) as PerEuro;
}

/** Rates the ECB stand-in served (stand-ins/ecb/, its fixture's): never a production price list (preflight.ts). */
export const fromEcbStandIn = (rates: Pick<ExchangeRates, 'source'>) => /stand-in/i.test(rates.source);

/** Why rates cannot price a build: older than MAX_RATE_AGE_DAYS (or from the future); undefined when fine. */
export function staleRates(rates: Pick<ExchangeRates, 'date'>, now = new Date(), maxAgeDays = MAX_RATE_AGE_DAYS): string | undefined {
  const ageDays = (now.getTime() - Date.parse(`${rates.date}T00:00:00Z`)) / 86_400_000;
  if (ageDays > maxAgeDays) {
    return `the exchange rates are of ${rates.date}, ${Math.floor(ageDays)} days old (at most ${maxAgeDays}): run npm run catalogue:generate for today's ECB rates`;
  }
  if (ageDays < -1) return `the exchange rates are dated ${rates.date}, in the future`;
  return undefined;
}

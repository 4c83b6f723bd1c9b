import type { DataAmount, Package, Price } from '../catalogue/schema.ts';
import { CURRENCIES, CURRENCY_RULES, type Currency } from '../config/currencies.ts';
import { PRICING_RULES, paymentFeeOf, type PricingConfig } from '../config/pricing.ts';
import { perEuro, type PerEuro } from './exchange-rates.ts';

/** A currency's pricing from the rules and the exchange rates the prices use (a snapshot's `applied`). */
export function pricingFor(currency: Currency, rates: PerEuro): PricingConfig {
  const rules = CURRENCY_RULES[currency];
  const unitsPerEuro = perEuro(rates, currency);
  const fee = paymentFeeOf(currency);
  return {
    currency,
    usdToRetail: unitsPerEuro / rates.USD,
    markup: PRICING_RULES.markup,
    vatRate: PRICING_RULES.vatRate,
    paymentFee: { rate: fee.rate, fixedMinor: Math.ceil(fee.fixedEur * unitsPerEuro * 10 ** rules.minorDigits) },
    priceEndings: rules.endings,
    endingEvery: rules.endingEvery,
    minimumMinor: rules.stripeMinimumMinor,
  };
}

/**
 * The one pricing function (DESIGN 6): the partner's wholesale price, US dollars × 10,000, to our
 * VAT-inclusive retail price in minor units of one currency. Browser-safe: no Node imports.
 */
export function retailPrice(wholesaleUsdE4: number, config: PricingConfig): Price {
  if (!Number.isInteger(wholesaleUsdE4) || wholesaleUsdE4 < 0) {
    throw new RangeError(`Wholesale price must be a whole number of USD/10,000 and not negative, got ${wholesaleUsdE4}`);
  }
  checkConfig(config);
  // The gross price whose net (after VAT and the payment fee) is the marked-up cost.
  const gross = (wholesaleCostMinor(wholesaleUsdE4, config) * config.markup + config.paymentFee.fixedMinor) / keptShare(config);
  const amountMinor = roundUpToEnding(Math.max(Math.ceil(gross), config.minimumMinor), config.priceEndings, config.endingEvery);
  return { amountMinor, currency: config.currency };
}

/**
 * Plans priced in every listed currency, each currency's list on its own held monotonic (no larger
 * plan cheaper than a smaller one): the amounts in minor units by currency, in the plans' order.
 */
export function pricesInEveryCurrency(plans: readonly Omit<PricedPlan, 'price'>[], rates: PerEuro): Record<Currency, number>[] {
  const lists = CURRENCIES.map((currency) => {
    const config = pricingFor(currency, rates);
    return enforceMonotonicPrices(
      plans.map((plan) => ({ ...plan, price: retailPrice(plan.wholesaleUsdE4, config) })),
      config,
    );
  });
  return plans.map(
    (_, i) => Object.fromEntries(CURRENCIES.map((currency, c) => [currency, lists[c]![i]!.price.amountMinor])) as Record<Currency, number>,
  );
}

/** The wholesale price in retail minor units (not rounded). */
export function wholesaleCostMinor(wholesaleUsdE4: number, config: Pick<PricingConfig, 'usdToRetail' | 'currency'>): number {
  return (wholesaleUsdE4 / 10_000) * config.usdToRetail * 10 ** CURRENCY_RULES[config.currency].minorDigits;
}

/** What a retail price leaves us after VAT and the payment fee, in minor units. */
export function netRevenueMinor(amountMinor: number, config: PricingConfig): number {
  return amountMinor * keptShare(config) - config.paymentFee.fixedMinor;
}

/**
 * Whether selling at `amountMinor` a package that costs `wholesaleUsdE4` leaves at least the
 * minimum markup (PRICING_RULES.minimumMarkup) after VAT and the payment fee.
 */
export function marginHolds(amountMinor: number, wholesaleUsdE4: number, config: PricingConfig): boolean {
  return netRevenueMinor(amountMinor, config) >= PRICING_RULES.minimumMarkup * wholesaleCostMinor(wholesaleUsdE4, config);
}

/** A destination's plan with its price, as in the catalogue. */
export interface PricedPlan {
  metadata: { dataAmount: DataAmount };
  /**
   * How the data is counted, and the speed once a day's volume is used: plans are compared only
   * with plans counted alike and as fast after it (absent: a fixed volume).
   */
  facts?: { data: { kind: string; after?: unknown } };
  validity: number;
  validityUnit: Package['validityUnit'];
  wholesaleUsdE4: number;
  price: Price;
}

/**
 * A destination's plans with no larger plan cheaper than a smaller one of the same validity, data
 * kind and speed after the day's volume (1 GB a day is not compared with 1 GB in all, nor a plan
 * slowed to 512 kbps with one slowed to 1 Mbps):
 * such a price is raised to the first allowed ending at or above the dearest smaller plan's.
 * Never lowers a price; returns the plans in their order, changed ones as copies.
 */
export function enforceMonotonicPrices<T extends Omit<PricedPlan, 'wholesaleUsdE4'>>(
  plans: readonly T[],
  config: Pick<PricingConfig, 'priceEndings' | 'endingEvery'>,
): T[] {
  const raised = new Map<T, Price>();
  const counted = (plan: T) => `${plan.facts?.data.kind ?? 'total'} ${JSON.stringify(plan.facts?.data.after ?? null)}`;
  for (const group of groupBy(plans, (plan) => `${counted(plan)} ${plan.validity} ${plan.validityUnit}`).values()) {
    const currencies = new Set(group.map((plan) => plan.price.currency));
    if (currencies.size > 1) throw new Error(`Plans of one destination priced in ${[...currencies].join(' and ')}`);
    const bySize = [...groupBy(group, (plan) => megabytes(plan.metadata.dataAmount))].sort(([a], [b]) => a - b);
    let smallerMax = 0;
    for (const [, sameSize] of bySize) {
      let sizeMax = smallerMax;
      for (const plan of sameSize) {
        const amountMinor =
          plan.price.amountMinor < smallerMax
            ? roundUpToEnding(smallerMax, config.priceEndings, config.endingEvery)
            : plan.price.amountMinor;
        if (amountMinor !== plan.price.amountMinor) raised.set(plan, { ...plan.price, amountMinor });
        sizeMax = Math.max(sizeMax, amountMinor);
      }
      smallerMax = sizeMax;
    }
  }
  return plans.map((plan) => {
    const price = raised.get(plan);
    return price ? { ...plan, price } : plan;
  });
}

/** The smallest amount ≥ `amountMinor` that ends in one of `endings` modulo `every` (49 or 99 of 100; 0 of 10). */
export function roundUpToEnding(amountMinor: number, endings: readonly number[], every = 100): number {
  const base = Math.floor(amountMinor / every) * every;
  const candidates = [...endings.map((e) => base + e), ...endings.map((e) => base + every + e)];
  return Math.min(...candidates.filter((c) => c >= amountMinor));
}

/** Map.groupBy, which Safari has only since 17.4. */
function groupBy<K, V>(items: readonly V[], key: (item: V) => K): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return groups;
}

function megabytes(amount: DataAmount): number {
  return amount.unit === 'GB' ? amount.value * 1024 : amount.value;
}

/** The share of a gross price left after VAT and the payment fee's percentage. */
function keptShare(config: PricingConfig): number {
  return 1 / (1 + config.vatRate) - config.paymentFee.rate;
}

function checkConfig(config: PricingConfig): void {
  const problems = [
    config.usdToRetail > 0 ? '' : 'usdToRetail must be positive',
    config.markup >= 1 ? '' : 'markup must be at least 1, or we sell below cost',
    keptShare(config) > 0 ? '' : 'VAT and the payment fee leave nothing of a price',
    config.paymentFee.fixedMinor >= 0 ? '' : 'the fixed payment fee must not be negative',
    config.priceEndings.length > 0 && config.priceEndings.every((e) => Number.isInteger(e) && e >= 0 && e < config.endingEvery)
      ? ''
      : `priceEndings must be whole numbers from 0 to ${config.endingEvery - 1}`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`Pricing configuration: ${problems.join('; ')}`);
}

/** The VAT included in a VAT-inclusive amount, in minor units (rounded to the nearest). */
export function includedVatMinor(amountMinor: number): number {
  return Math.round(amountMinor - amountMinor / (1 + PRICING_RULES.vatRate));
}

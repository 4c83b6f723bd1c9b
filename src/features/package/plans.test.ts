import { describe, expect, it } from 'vitest';
import { formatPrices, lowestPrices, planView, sortPlans } from './plans.ts';
import { CURRENCIES } from '../../config/currencies.ts';
import type { Prices } from '../../catalogue/schema.ts';
import { useTranslations } from '../../i18n/t.ts';
import { testFacts } from '../../catalogue/test-facts.ts';
import pl from '../../../locales/pl/common.json';
import ar from '../../../locales/ar/common.json';

const pkg = {
  id: 'europe-5gb-30d',
  metadata: { dataAmount: { value: 5, unit: 'GB' as const } },
  validity: 30,
  validityUnit: 'day' as const,
  supportedCountries: ['DE', 'FR'],
  facts: testFacts(['DE', 'FR']),
};

/** A price list as the catalogue sends it: `price` the euro one, `prices` in every currency (rough rates; each currency rounded alike). */
function priceList(eur: number, overrides: Partial<Prices> = {}) {
  const prices: Prices = {
    EUR: eur,
    USD: eur + 500,
    GBP: eur - 400,
    CHF: eur,
    PLN: eur * 4 + 1,
    JPY: Math.round((eur * 1.8) / 10) * 10,
    CAD: eur + 700,
    AUD: eur + 1000,
    BRL: eur * 6 + 5,
    ...overrides,
  };
  return { price: { amountMinor: eur, currency: 'EUR' }, prices };
}

describe('plan card text', () => {
  it('counts countries with the language’s plural forms', () => {
    const t = useTranslations('pl');
    expect(t('store.countriesCount', { count: 1 })).toBe(pl.store.countriesCount_one.replace('{{count}}', '1'));
    expect(t('store.countriesCount', { count: 3 })).toBe(pl.store.countriesCount_few.replace('{{count}}', '3'));
    expect(t('store.countriesCount', { count: 54 })).toBe(pl.store.countriesCount_few.replace('{{count}}', '54'));
    expect(t('store.countriesCount', { count: 25 })).toBe(pl.store.countriesCount_many.replace('{{count}}', '25'));
    const tAr = useTranslations('ar');
    expect(tAr('store.countriesCount', { count: 2 })).toBe(ar.store.countriesCount_two);
    expect(tAr('store.countriesCount', { count: 22 })).toBe(ar.store.countriesCount_many.replace('{{count}}', '22'));
  });

  it('has no price until the catalogue sends one, then formats every currency’s minor units in the page’s language', () => {
    const unpriced = planView(pkg, 'en', useTranslations('en'), useTranslations('en', 'plans'));
    expect(unpriced.prices).toBeUndefined();
    expect(unpriced.amounts).toBeUndefined();
    const priced = planView({ ...pkg, ...priceList(2999) }, 'de', useTranslations('de'), useTranslations('de', 'plans'));
    expect(priced.amounts).toEqual(priceList(2999).prices);
    expect(Object.keys(priced.prices!)).toEqual([...CURRENCIES]);
    const de = (currency: string, amount: number) => new Intl.NumberFormat('de', { style: 'currency', currency }).format(amount);
    expect(priced.prices).toMatchObject({ EUR: de('EUR', 29.99), USD: de('USD', 34.99), GBP: de('GBP', 25.99), PLN: de('PLN', 119.97) });
    // The yen has no minor unit: 5,400 yen, not 54.00.
    expect(priced.prices!.JPY).toBe(de('JPY', 5400));
  });

  it('writes each currency as the language does: Arabic right to left with its own marks', () => {
    const prices = formatPrices(priceList(499).prices, 'ar');
    for (const currency of CURRENCIES)
      expect(prices[currency]).toBe(
        new Intl.NumberFormat('ar', { style: 'currency', currency }).format(
          priceList(499).prices[currency] / (currency === 'JPY' ? 1 : 100),
        ),
      );
  });
});

describe('plans by price', () => {
  const plans = [
    { ...pkg, id: 'b', ...priceList(899) },
    { ...pkg, id: 'unpriced' },
    { ...pkg, id: 'a', ...priceList(199) },
    { ...pkg, id: 'c', ...priceList(2649) },
  ];
  const views = plans.map((p) => planView(p, 'en', useTranslations('en'), useTranslations('en', 'plans')));
  const ids = (order: Parameters<typeof sortPlans>[1], currency: Parameters<typeof sortPlans>[2] = 'EUR') =>
    sortPlans(views, order, currency).map((p) => p.id);

  it('keeps the catalogue order by default, sorts by price either way, plans without a price last', () => {
    expect(ids('default')).toEqual(['b', 'unpriced', 'a', 'c']);
    expect(ids('price-asc')).toEqual(['a', 'b', 'c', 'unpriced']);
    expect(ids('price-desc')).toEqual(['c', 'b', 'a', 'unpriced']);
    // Sorting copies: the catalogue order stays for going back to it.
    expect(views.map((p) => p.id)).toEqual(['b', 'unpriced', 'a', 'c']);
  });

  it('sorts by the shown currency’s own price list, which may order two plans otherwise', () => {
    // Each currency is rounded on its own: two plans a cent apart in euros can swap in pounds.
    const close = [
      { ...pkg, id: 'x', ...priceList(499, { GBP: 449 }) },
      { ...pkg, id: 'y', ...priceList(489, { GBP: 399 }) },
      { ...pkg, id: 'z', ...priceList(479, { GBP: 499 }) },
    ].map((p) => planView(p, 'en', useTranslations('en'), useTranslations('en', 'plans')));
    expect(sortPlans(close, 'price-asc', 'EUR').map((p) => p.id)).toEqual(['z', 'y', 'x']);
    expect(sortPlans(close, 'price-asc', 'GBP').map((p) => p.id)).toEqual(['y', 'x', 'z']);
    expect(sortPlans(close, 'price-desc', 'GBP').map((p) => p.id)).toEqual(['z', 'x', 'y']);
  });

  it('finds a destination’s lowest price in every currency, each currency’s own lowest; none when nothing is priced', () => {
    expect(lowestPrices(plans)).toEqual(priceList(199).prices);
    expect(
      lowestPrices([
        { ...pkg, ...priceList(499, { GBP: 449 }) },
        { ...pkg, ...priceList(489, { GBP: 499 }) },
      ]),
    ).toEqual({
      ...priceList(489).prices,
      GBP: 449,
    });
    expect(lowestPrices([pkg, { ...pkg, id: 'x' }])).toBeUndefined();
    expect(lowestPrices([])).toBeUndefined();
  });
});

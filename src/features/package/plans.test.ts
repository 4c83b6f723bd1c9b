import { describe, expect, it } from 'vitest';
import { lowestPrice, planView, sortPlans } from './plans.ts';
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

  it('has no price until the catalogue sends one, then formats minor units', () => {
    expect(planView(pkg, 'en', useTranslations('en'), useTranslations('en', 'plans')).price).toBeUndefined();
    const priced = planView(
      { ...pkg, price: { amountMinor: 2999, currency: 'EUR' } },
      'de',
      useTranslations('de'),
      useTranslations('de', 'plans'),
    );
    expect(priced.price).toBe(new Intl.NumberFormat('de', { style: 'currency', currency: 'EUR' }).format(29.99));
  });
});

describe('plans by price', () => {
  const euro = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });
  const plans = [
    { ...pkg, id: 'b', price: euro(899) },
    { ...pkg, id: 'unpriced' },
    { ...pkg, id: 'a', price: euro(199) },
    { ...pkg, id: 'c', price: euro(2649) },
  ];
  const views = plans.map((p) => planView(p, 'en', useTranslations('en'), useTranslations('en', 'plans')));
  const ids = (order: Parameters<typeof sortPlans>[1]) => sortPlans(views, order).map((p) => p.id);

  it('keeps the catalogue order by default, sorts by price either way, plans without a price last', () => {
    expect(ids('default')).toEqual(['b', 'unpriced', 'a', 'c']);
    expect(ids('price-asc')).toEqual(['a', 'b', 'c', 'unpriced']);
    expect(ids('price-desc')).toEqual(['c', 'b', 'a', 'unpriced']);
    // Sorting copies: the catalogue order stays for going back to it.
    expect(views.map((p) => p.id)).toEqual(['b', 'unpriced', 'a', 'c']);
  });

  it('finds a destination’s lowest price, none when nothing is priced', () => {
    expect(lowestPrice(plans)).toEqual(euro(199));
    expect(lowestPrice([pkg, { ...pkg, id: 'x' }])).toBeUndefined();
    expect(lowestPrice([])).toBeUndefined();
  });
});

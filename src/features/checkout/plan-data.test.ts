import { describe, expect, it } from 'vitest';
import { continentNames } from '../../catalogue/continents.ts';
import { loadCatalogue } from '../../catalogue/loader.ts';
import { CURRENCIES } from '../../config/currencies.ts';
import { checkoutUrl, planData, planDataUrl } from './plan-data.ts';

const catalogue = await loadCatalogue();

describe('the plans checkout can show (/plans/{id}.json)', () => {
  it('holds every priced plan once, with its destination (and a country’s continent) named in every language', () => {
    const plans = planData(catalogue, continentNames);
    const all = [...catalogue.packages.values()].flat();
    expect(plans).toHaveLength(all.length);
    expect(new Set(plans.map((p) => p.id)).size).toBe(plans.length);
    const germany = plans.find((p) => p.id === 'de-1gb-7d')!;
    const listed = catalogue.packages.get('DE')!.find((p) => p.id === 'de-1gb-7d')!;
    expect(germany.price).toEqual(listed.price);
    // Every currency's price (issue 34): checkout and the cart show the visitor's.
    expect(germany.prices).toEqual(listed.prices);
    expect(germany.prices.EUR).toBe(germany.price.amountMinor);
    expect(Object.keys(germany.prices).sort()).toEqual([...CURRENCIES].sort());
    expect(germany.destination).toMatchObject({ code: 'DE', flag: '/flags/DE.svg' });
    expect(germany.destination.names.de).toBe('Deutschland');
    // The plan's facts, but not its networks (the package page lists them; a global plan's are 20 KB).
    expect(germany.facts).toMatchObject({ data: { kind: 'total' }, topUp: expect.any(Boolean) });
    expect(germany.facts).not.toHaveProperty('networks');
    expect(germany.destination.continent).toMatchObject({ en: 'Europe', de: 'Europa', ar: 'أوروبا' });
    const europe = plans.find((p) => p.id.startsWith('europe-'))!.destination;
    expect(europe.code).toBe('europe');
    expect(europe.continent).toBeUndefined();
  });

  it('leaves out a plan without a price: it cannot be bought', () => {
    const packages = new Map(catalogue.packages);
    packages.set(
      'JP',
      packages.get('JP')!.map(({ price: _, ...pkg }) => pkg),
    );
    const ids = planData({ ...catalogue, packages }, continentNames).map((p) => p.id);
    expect(ids.some((id) => id.startsWith('jp-'))).toBe(false);
    expect(ids).toContain('de-1gb-7d');
  });

  it('carries the plan in the checkout URL, and keeps any id one path segment when fetching it', () => {
    expect(checkoutUrl('/de/checkout', 'de-1gb-7d')).toBe('/de/checkout?plan=de-1gb-7d');
    expect(new URL(checkoutUrl('/checkout', 'a&b=c'), 'http://x').searchParams.get('plan')).toBe('a&b=c');
    expect(planDataUrl('de-1gb-7d')).toBe('/plans/de-1gb-7d.json');
    expect(planDataUrl('../index')).toBe('/plans/..%2Findex.json');
  });
});

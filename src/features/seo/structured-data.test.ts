import { describe, expect, it } from 'vitest';
import { jsonLd, productData } from './structured-data.ts';
import type { Package } from '../../catalogue/schema.ts';
import type { Currency } from '../../config/currencies.ts';
import { testFacts } from '../../catalogue/test-facts.ts';

/** A plan priced in euros and in the other currencies at made-up amounts: yen whole, the others in cents. */
const plan = (id: string, eur?: number): Package => ({
  id,
  metadata: { dataAmount: { value: 1, unit: 'GB' } },
  validity: 7,
  validityUnit: 'day',
  supportedCountries: ['JP'],
  facts: testFacts(['JP']),
  ...(eur && {
    price: { amountMinor: eur, currency: 'EUR' },
    prices: { EUR: eur, USD: eur + 50, GBP: eur - 50, CHF: eur, PLN: eur * 4, JPY: eur * 2, CAD: eur + 70, AUD: eur + 100, BRL: eur * 6 },
  }),
});
const product = (packages: Package[], currency: Currency = 'EUR') =>
  productData({
    name: 'Japan',
    description: 'Plans',
    url: 'https://x.test/package/jp',
    image: 'https://x.test/flags/JP.svg',
    packages,
    currency,
  });

describe('Product structured data', () => {
  it('is left out while no plan has a price: no Product without an offer', () => {
    expect(product([plan('a'), plan('b')])).toBeUndefined();
    expect(product([])).toBeUndefined();
  });

  it('offers the price range of the priced plans, in stock, at the page, in the currency’s major units', () => {
    const data = product([plan('a', 499), plan('b', 1999), plan('c')]);
    expect(data).toMatchObject({ '@type': 'Product', name: 'Japan', url: 'https://x.test/package/jp' });
    expect(data!.offers).toEqual({
      '@type': 'AggregateOffer',
      priceCurrency: 'EUR',
      lowPrice: 4.99,
      highPrice: 19.99,
      offerCount: 2,
      availability: 'https://schema.org/InStock',
      url: 'https://x.test/package/jp',
    });
  });

  it('offers in the currency the page shows without a script, from that currency’s price list', () => {
    const plans = [plan('a', 499), plan('b', 1999), plan('c')];
    expect(product(plans, 'USD')!.offers).toMatchObject({ priceCurrency: 'USD', lowPrice: 5.49, highPrice: 20.49, offerCount: 2 });
    expect(product(plans, 'PLN')!.offers).toMatchObject({ priceCurrency: 'PLN', lowPrice: 19.96, highPrice: 79.96 });
    // The yen has no minor unit: 998 is 998 yen, not 9.98.
    expect(product(plans, 'JPY')!.offers).toMatchObject({ priceCurrency: 'JPY', lowPrice: 998, highPrice: 3998, offerCount: 2 });
  });

  it('offers daily and unlimited plans like the others, and states no data amount an unlimited plan would belie', () => {
    const unlimited: Package = {
      ...plan('jp-unlimited-3gb-7d', 2499),
      facts: testFacts(['JP'], { data: { kind: 'unlimited', after: { slowedToKbps: 1000 } } }),
    };
    const daily: Package = {
      ...plan('jp-1gb-daily-7d', 899),
      facts: testFacts(['JP'], { data: { kind: 'daily', after: 'cut' } }),
    };
    const data = product([plan('jp-1gb-7d', 499), daily, unlimited]);
    expect(data!.offers).toMatchObject({ lowPrice: 4.99, highPrice: 24.99, offerCount: 3 });
    expect(JSON.stringify(data)).not.toMatch(/\d\s*(GB|MB)\b/i);
  });
});

describe('jsonLd', () => {
  it('cannot close its script element, whatever the text says', () => {
    const text = jsonLd({ '@type': 'Thing', name: '</script><script>alert(1)</script>' });
    expect(text).not.toContain('</script');
    expect(JSON.parse(text)).toMatchObject({ '@context': 'https://schema.org', name: '</script><script>alert(1)</script>' });
  });
});

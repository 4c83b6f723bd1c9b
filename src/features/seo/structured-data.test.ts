import { describe, expect, it } from 'vitest';
import { jsonLd, productData } from './structured-data.ts';
import type { Package } from '../../catalogue/schema.ts';
import { testFacts } from '../../catalogue/test-facts.ts';

const plan = (id: string, price?: Package['price']): Package => ({
  id,
  metadata: { dataAmount: { value: 1, unit: 'GB' } },
  validity: 7,
  validityUnit: 'day',
  supportedCountries: ['JP'],
  facts: testFacts(['JP']),
  ...(price && { price }),
});
const product = (packages: Package[]) =>
  productData({ name: 'Japan', description: 'Plans', url: 'https://x.test/package/jp', image: 'https://x.test/flags/JP.svg', packages });

describe('Product structured data', () => {
  it('is left out while no plan has a price: no Product without an offer', () => {
    expect(product([plan('a'), plan('b')])).toBeUndefined();
    expect(product([])).toBeUndefined();
  });

  it('offers the price range of the priced plans, in stock, at the page, in the currency’s major units', () => {
    const data = product([plan('a', { amountMinor: 499, currency: 'EUR' }), plan('b', { amountMinor: 1999, currency: 'EUR' }), plan('c')]);
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
    // The yen has no minor unit: 1500 is 1500 yen, not 15.
    expect(product([plan('a', { amountMinor: 1500, currency: 'JPY' })])!.offers).toMatchObject({ lowPrice: 1500, highPrice: 1500 });
  });

  it('offers daily and unlimited plans like the others, and states no data amount an unlimited plan would belie', () => {
    const unlimited: Package = {
      ...plan('jp-unlimited-3gb-7d', { amountMinor: 2499, currency: 'EUR' }),
      facts: testFacts(['JP'], { data: { kind: 'unlimited', after: { slowedToKbps: 1000 } } }),
    };
    const daily: Package = {
      ...plan('jp-1gb-daily-7d', { amountMinor: 899, currency: 'EUR' }),
      facts: testFacts(['JP'], { data: { kind: 'daily', after: 'cut' } }),
    };
    const data = product([plan('jp-1gb-7d', { amountMinor: 499, currency: 'EUR' }), daily, unlimited]);
    expect(data!.offers).toMatchObject({ lowPrice: 4.99, highPrice: 24.99, offerCount: 3 });
    expect(JSON.stringify(data)).not.toMatch(/\d\s*(GB|MB)\b/i);
  });

  it('never mixes currencies in one price range', () => {
    const data = product([plan('a', { amountMinor: 500, currency: 'EUR' }), plan('b', { amountMinor: 90000, currency: 'JPY' })]);
    expect(data!.offers).toMatchObject({ priceCurrency: 'EUR', lowPrice: 5, highPrice: 5, offerCount: 1 });
  });
});

describe('jsonLd', () => {
  it('cannot close its script element, whatever the text says', () => {
    const text = jsonLd({ '@type': 'Thing', name: '</script><script>alert(1)</script>' });
    expect(text).not.toContain('</script');
    expect(JSON.parse(text)).toMatchObject({ '@context': 'https://schema.org', name: '</script><script>alert(1)</script>' });
  });
});

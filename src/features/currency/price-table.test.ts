import { describe, expect, it } from 'vitest';
import { CURRENCIES, type Currency } from '../../config/currencies.ts';
import { priceTable, showPrices } from './price-table.ts';

/** A price list formatted as a page would: '€4.99', '¥900'. */
const list = (eur: number): Record<Currency, string> =>
  Object.fromEntries(
    CURRENCIES.map((currency) => [
      currency,
      new Intl.NumberFormat('de', { style: 'currency', currency }).format(currency === 'JPY' ? eur * 180 : eur),
    ]),
  ) as Record<Currency, string>;

/** Just enough of a DOM for showPrices: a root with the table's attributes and its price elements. */
function page(attributes: Record<string, string>, count: number) {
  const elements = Array.from({ length: count }, () => ({ dataset: { price: '' }, textContent: 'unchanged' }));
  const dataset = {
    priceTable: attributes['data-price-table'],
    priceOrder: attributes['data-price-order'],
    ...(attributes['data-price-text'] && { priceText: attributes['data-price-text'] }),
  };
  const root = { dataset, querySelectorAll: () => elements } as unknown as HTMLElement;
  return { root, texts: () => elements.map((e) => e.textContent) };
}

describe('prices in static markup, in every currency', () => {
  it('carries each distinct price list once, and one character per price saying which', () => {
    const table = priceTable();
    for (const eur of [4.99, 9.99, 4.99, 4.99, 19.99, 9.99]) table.add(list(eur));
    const attributes = table.attributes();
    const lines = attributes['data-price-table'].split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]!.split('\t')).toEqual(CURRENCIES.map((c) => list(9.99)[c]));
    expect(attributes['data-price-order']).toBe('010021');
    // Nothing an attribute must escape, and nothing a formatted price contains.
    expect(attributes['data-price-order']).not.toMatch(/["&\t\n]/);
  });

  it('shows every price in the chosen currency, in the text around it', () => {
    const table = priceTable();
    for (const eur of [4.99, 9.99, 4.99]) table.add(list(eur));
    const { root, texts } = page({ ...table.attributes(), 'data-price-text': 'ab {{price}}' }, 3);
    showPrices(root, 'GBP');
    expect(texts()).toEqual([4.99, 9.99, 4.99].map((eur) => `ab ${list(eur).GBP}`));
    showPrices(root, 'JPY');
    expect(texts()).toEqual([4.99, 9.99, 4.99].map((eur) => `ab ${list(eur).JPY}`));
  });

  it('tells apart more price lists than there are digits and letters', () => {
    const table = priceTable();
    const amounts = Array.from({ length: 120 }, (_, i) => 1 + i);
    for (const eur of amounts) table.add(list(eur));
    const { root, texts } = page(table.attributes(), amounts.length);
    showPrices(root, 'CHF');
    expect(texts()).toEqual(amounts.map((eur) => list(eur).CHF));
  });
});

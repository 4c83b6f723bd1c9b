import { CURRENCIES, type Currency } from '../../config/currencies.ts';

/**
 * Prices in static markup, in every currency (issue 34), compactly: a store of 250 destinations
 * has some 65 different 'from' price lists, so the page carries those, not 250 × 9 prices.
 * - `data-price-table`: each distinct price list once, formatted at build time in the page's
 *   language, one per line, its prices in CURRENCIES order separated by tabs (characters no
 *   formatted price has, nor one an attribute must escape);
 * - `data-price-order`: which line each `[data-price]` element under it shows, in document
 *   order, one character each (line 0 is '0', line 1 '1', and so on up the character codes);
 * - `data-price-text`, optional: the text around a price ('from {{price}}').
 * The elements show the page language's currency until showPrices swaps them.
 */
export function priceTable() {
  const lines: string[] = [];
  const seen = new Map<string, number>();
  let order = '';
  return {
    /** Adds the next `[data-price]` element's prices, in document order. */
    add(prices: Readonly<Record<Currency, string>>): void {
      const line = CURRENCIES.map((currency) => prices[currency]).join('\t');
      let index = seen.get(line);
      if (index === undefined) seen.set(line, (index = lines.push(line) - 1));
      order += String.fromCharCode(FIRST + index);
    },
    attributes: () => ({ 'data-price-table': lines.join('\n'), 'data-price-order': order }),
  };
}

/** The character of line 0: '0', past every character an attribute value would escape. */
const FIRST = 48;

/** In the browser: shows every `[data-price]` under `root` in `currency`, from the table on `root`. */
export function showPrices(root: HTMLElement, currency: Currency): void {
  const lines = (root.dataset.priceTable ?? '').split('\n');
  const order = root.dataset.priceOrder ?? '';
  const column = CURRENCIES.indexOf(currency);
  const template = root.dataset.priceText ?? '{{price}}';
  root.querySelectorAll<HTMLElement>('[data-price]').forEach((element, i) => {
    const price = lines[order.charCodeAt(i) - FIRST]?.split('\t')[column];
    if (price) element.textContent = template.replace('{{price}}', price);
  });
}

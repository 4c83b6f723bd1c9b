import { getTestStorage, setTestStorageKey, useTestStorageEngine } from '@nanostores/persistent';
import { beforeEach, describe, expect, it } from 'vitest';
import { CART_MAX_ESIMS } from '../../config/constants.ts';
import { CART_STORAGE_KEY, parseCart, withOneMore, type CartLine } from './cart-storage.ts';

// The browser's localStorage, as the library's own test engine (Node has none): set before the cart is made.
useTestStorageEngine();
const { $cart, $cartCount, lineIn, maxQuantity, removeFromCart, setQuantity, showIn, updatePrices } = await import('./cart.ts');

const EUR = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });
const add = (lines: CartLine[], planId: string, amountMinor: number) => withOneMore(lines, planId, EUR(amountMinor));

describe('adding to the cart', () => {
  it('adds a plan once and counts each eSIM, keeping the price last seen', () => {
    let lines: CartLine[] = [];
    for (const [planId, amount] of [
      ['jp-5gb-30d', 1299],
      ['kr-3gb-15d', 899],
      ['jp-5gb-30d', 1349],
    ] as const) {
      const added = add(lines, planId, amount);
      expect(added.outcome).toBe('added');
      lines = added.lines;
    }
    expect(lines).toEqual([
      { planId: 'jp-5gb-30d', quantity: 2, price: EUR(1349) },
      { planId: 'kr-3gb-15d', quantity: 1, price: EUR(899) },
    ]);
  });

  it('refuses an eleventh eSIM, or an eleventh of one plan', () => {
    const full = [{ planId: 'jp-5gb-30d', quantity: CART_MAX_ESIMS, price: EUR(1299) }];
    expect(add(full, 'jp-5gb-30d', 1299)).toEqual({ lines: full, outcome: 'full' });
    expect(add(full, 'kr-3gb-15d', 899).outcome).toBe('full');
  });

  it('reads only what is a cart from storage', () => {
    expect(parseCart(null)).toEqual([]);
    expect(parseCart('{"not":"a cart"')).toEqual([]);
    expect(
      parseCart(
        JSON.stringify([
          { planId: 'x', quantity: 99, price: EUR(1) },
          { planId: 'y', quantity: 2, price: EUR(5) },
        ]),
      ),
    ).toEqual([{ planId: 'y', quantity: 2, price: EUR(5) }]);
  });
});

describe('the cart page’s store', () => {
  beforeEach(() => $cart.set([]));

  it('keeps quantities within ten eSIMs an order, and removes a plan', () => {
    $cart.set([
      { planId: 'jp-5gb-30d', quantity: 1, price: EUR(1299) },
      { planId: 'kr-3gb-15d', quantity: 1, price: EUR(899) },
    ]);
    setQuantity('jp-5gb-30d', 20);
    expect($cart.get()[0]!.quantity).toBe(CART_MAX_ESIMS - 1);
    expect($cartCount.get()).toBe(CART_MAX_ESIMS);
    expect(maxQuantity('kr-3gb-15d')).toBe(1);
    setQuantity('jp-5gb-30d', 0);
    expect($cart.get()[0]!.quantity).toBe(1);
    removeFromCart('jp-5gb-30d');
    expect($cart.get().map((l) => l.planId)).toEqual(['kr-3gb-15d']);
  });

  it('takes the current prices, and says which moved', () => {
    $cart.set([
      { planId: 'jp-5gb-30d', quantity: 1, price: EUR(1299) },
      { planId: 'kr-3gb-15d', quantity: 1, price: EUR(899) },
    ]);
    expect(
      updatePrices([
        { planId: 'jp-5gb-30d', price: EUR(1299) },
        { planId: 'kr-3gb-15d', price: EUR(949) },
      ]),
    ).toEqual(['kr-3gb-15d']);
    expect($cart.get()[1]!.price).toEqual(EUR(949));
  });

  it('shows and pays a line seen in another currency in the one chosen now, not as a moved price (issue 34)', () => {
    const GBP = (amountMinor: number) => ({ amountMinor, currency: 'GBP' });
    $cart.set([
      { planId: 'jp-5gb-30d', quantity: 2, price: EUR(1299) },
      { planId: 'kr-3gb-15d', quantity: 1, price: GBP(799) },
    ]);
    // The cart page loads the plans in pounds: the euro line takes the pound price, the pound line's moved price is said.
    expect(
      updatePrices([
        { planId: 'jp-5gb-30d', price: GBP(1149) },
        { planId: 'kr-3gb-15d', price: GBP(849) },
      ]),
    ).toEqual(['kr-3gb-15d']);
    expect($cart.get()).toEqual([
      { planId: 'jp-5gb-30d', quantity: 2, price: GBP(1149) },
      { planId: 'kr-3gb-15d', quantity: 1, price: GBP(849) },
    ]);

    // Yen picked while the cart is open: every line in yen (whole yen, no minor units), remembered.
    const prices: Record<string, Partial<Record<'EUR' | 'GBP' | 'JPY', number>>> = {
      'jp-5gb-30d': { EUR: 1299, GBP: 1149, JPY: 2130 },
      'kr-3gb-15d': { EUR: 949, GBP: 849, JPY: 1560 },
    };
    showIn('JPY', (planId) => prices[planId]);
    expect($cart.get().map((l) => l.price)).toEqual([
      { amountMinor: 2130, currency: 'JPY' },
      { amountMinor: 1560, currency: 'JPY' },
    ]);
    expect(JSON.parse(getTestStorage()[CART_STORAGE_KEY]!)[0].price).toEqual({ amountMinor: 2130, currency: 'JPY' });
  });

  it('keeps a line already in the chosen currency as seen (a price the API answered), and one whose plan is not known yet', () => {
    const line = { planId: 'jp-5gb-30d', quantity: 1, price: EUR(1349) };
    expect(lineIn(line, { EUR: 1299, GBP: 1149 }, 'EUR')).toBe(line);
    expect(lineIn(line, undefined, 'GBP')).toBe(line);
    expect(lineIn(line, { EUR: 1299 }, 'GBP')).toBe(line);
    expect(lineIn(line, { EUR: 1299, GBP: 1149 }, 'GBP')).toEqual({ ...line, price: { amountMinor: 1149, currency: 'GBP' } });
    $cart.set([line]);
    showIn('EUR', () => ({ EUR: 1299 }));
    expect($cart.get()).toEqual([line]);
  });

  it('is kept on the device as JSON, and follows what another tab stores', () => {
    $cart.set([{ planId: 'jp-5gb-30d', quantity: 1, price: EUR(1299) }]);
    expect(JSON.parse(getTestStorage()[CART_STORAGE_KEY]!)).toEqual([{ planId: 'jp-5gb-30d', quantity: 1, price: EUR(1299) }]);
    setTestStorageKey(CART_STORAGE_KEY, JSON.stringify([{ planId: 'y', quantity: 2, price: EUR(5) }]));
    expect($cart.get()).toEqual([{ planId: 'y', quantity: 2, price: EUR(5) }]);
    setTestStorageKey(CART_STORAGE_KEY, '{"not":"a cart"');
    expect($cart.get()).toEqual([]);
  });
});

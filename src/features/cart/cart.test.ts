import { getTestStorage, setTestStorageKey, useTestStorageEngine } from '@nanostores/persistent';
import { beforeEach, describe, expect, it } from 'vitest';
import { CART_MAX_ESIMS } from '../../config/constants.ts';
import { CART_STORAGE_KEY, parseCart, withOneMore, type CartLine } from './cart-storage.ts';

// The browser's localStorage, as the library's own test engine (Node has none): set before the cart is made.
useTestStorageEngine();
const { $cart, $cartCount, maxQuantity, removeFromCart, setQuantity, updatePrices } = await import('./cart.ts');

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

  it('is kept on the device as JSON, and follows what another tab stores', () => {
    $cart.set([{ planId: 'jp-5gb-30d', quantity: 1, price: EUR(1299) }]);
    expect(JSON.parse(getTestStorage()[CART_STORAGE_KEY]!)).toEqual([{ planId: 'jp-5gb-30d', quantity: 1, price: EUR(1299) }]);
    setTestStorageKey(CART_STORAGE_KEY, JSON.stringify([{ planId: 'y', quantity: 2, price: EUR(5) }]));
    expect($cart.get()).toEqual([{ planId: 'y', quantity: 2, price: EUR(5) }]);
    setTestStorageKey(CART_STORAGE_KEY, '{"not":"a cart"');
    expect($cart.get()).toEqual([]);
  });
});

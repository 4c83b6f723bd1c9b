import { persistentAtom } from '@nanostores/persistent';
import { computed } from 'nanostores';
import type { Price } from '../../catalogue/schema.ts';
import { CART_MAX_ESIMS, CART_MAX_PER_PLAN } from '../../config/constants.ts';
import { CART_CHANGE_EVENT, CART_STORAGE_KEY, countOf, parseCart, type CartLine } from './cart-storage.ts';

/** The cart page's store of the stored cart (cart-storage.ts): it follows changes made in other tabs. */
export const $cart = persistentAtom<CartLine[]>(CART_STORAGE_KEY, [], { encode: JSON.stringify, decode: parseCart });

// The header's count reads the stored cart itself; on this page it hears of each change here.
if (typeof window !== 'undefined') $cart.listen(() => window.dispatchEvent(new Event(CART_CHANGE_EVENT)));

/** How many eSIMs the cart holds. */
export const $cartCount = computed($cart, countOf);

/** The largest quantity this line may have now: its plan's limit, and what the order's limit leaves. */
export function maxQuantity(planId: string): number {
  const others = $cart.get().reduce((sum, l) => (l.planId === planId ? sum : sum + l.quantity), 0);
  return Math.min(CART_MAX_PER_PLAN, CART_MAX_ESIMS - others);
}

/** Sets a line's quantity, within 1 and maxQuantity. */
export function setQuantity(planId: string, quantity: number): void {
  const allowed = Math.max(1, Math.min(Math.trunc(quantity) || 1, maxQuantity(planId)));
  $cart.set($cart.get().map((l) => (l.planId === planId ? { ...l, quantity: allowed } : l)));
}

export function removeFromCart(planId: string): void {
  $cart.set($cart.get().filter((l) => l.planId !== planId));
}

/** The prices the catalogue (or the API) gives now replace those the buyer saw; answers the plans whose price moved. */
export function updatePrices(prices: readonly { planId: string; price: Price }[]): string[] {
  const moved: string[] = [];
  const now = new Map(prices.map((p) => [p.planId, p.price]));
  $cart.set(
    $cart.get().map((l) => {
      const price = now.get(l.planId);
      if (!price || (price.amountMinor === l.price.amountMinor && price.currency === l.price.currency)) return l;
      moved.push(l.planId);
      return { ...l, price };
    }),
  );
  return moved;
}

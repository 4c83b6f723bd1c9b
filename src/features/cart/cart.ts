import { persistentAtom } from '@nanostores/persistent';
import { computed } from 'nanostores';
import type { Price } from '../../catalogue/schema.ts';
import { CART_MAX_ESIMS, CART_MAX_PER_PLAN } from '../../config/constants.ts';
import type { Currency } from '../../config/currencies.ts';
import { priceIn } from '../../pricing/price-in.ts';
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

/**
 * The prices the catalogue (or the API) gives now replace those the buyer saw; answers the plans
 * whose price moved. A line seen in another currency takes the new one's price: the buyer chose
 * another currency (issue 34), which is not a moved price.
 */
export function updatePrices(prices: readonly { planId: string; price: Price }[]): string[] {
  const moved: string[] = [];
  const now = new Map(prices.map((p) => [p.planId, p.price]));
  $cart.set(
    $cart.get().map((l) => {
      const price = now.get(l.planId);
      if (!price || (price.amountMinor === l.price.amountMinor && price.currency === l.price.currency)) return l;
      if (price.currency === l.price.currency) moved.push(l.planId);
      return { ...l, price };
    }),
  );
  return moved;
}

/**
 * A line as the cart shows and pays it in `currency` (issue 34): as it is when seen in it (a price
 * the API answered stays); else at its plan's price in it (`prices`, by currency), or as it is
 * while that is not known.
 */
export function lineIn(line: CartLine, prices: Partial<Record<Currency, number>> | undefined, currency: Currency): CartLine {
  const price = prices && priceIn(prices, currency);
  return line.price.currency === currency || !price ? line : { ...line, price };
}

/** Every line in `currency`, remembered so: another currency picked while the cart is open. */
export function showIn(currency: Currency, pricesOf: (planId: string) => Partial<Record<Currency, number>> | undefined): void {
  const lines = $cart.get();
  const shown = lines.map((line) => lineIn(line, pricesOf(line.planId), currency));
  if (shown.some((line, i) => line !== lines[i])) $cart.set(shown);
}

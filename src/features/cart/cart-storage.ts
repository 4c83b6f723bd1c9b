import type { Price } from '../../catalogue/schema.ts';
import { CART_MAX_ESIMS, CART_MAX_PER_PLAN } from '../../config/constants.ts';

/**
 * The cart as this device keeps it (issue 33): across pages and visits, until it is paid, in
 * localStorage. This file is the whole of the cart that every page and the package page's Add to
 * cart load (the header's count, adding a plan); the cart page's store (cart.ts) reads the same.
 */
export const CART_STORAGE_KEY = 'esim-cart';

/** Sent on this page's window when the cart changes (a `storage` event tells only other tabs). */
export const CART_CHANGE_EVENT = 'esim-cart-change';

/** One plan in the cart: how many eSIMs of it, and the price the buyer last saw (the cart page checks it again). */
export interface CartLine {
  planId: string;
  quantity: number;
  price: Price;
}

const isLine = (value: unknown): value is CartLine => {
  const line = value as CartLine | null;
  return (
    typeof line?.planId === 'string' &&
    Number.isInteger(line.quantity) &&
    line.quantity >= 1 &&
    line.quantity <= CART_MAX_PER_PLAN &&
    Number.isInteger(line.price?.amountMinor) &&
    typeof line.price.currency === 'string'
  );
};

/** The stored cart; whatever else is stored under the key (another version's, a broken one) reads as what is valid of it. */
export function parseCart(stored: string | null | undefined): CartLine[] {
  try {
    const lines: unknown = JSON.parse(stored ?? '[]');
    return Array.isArray(lines) ? lines.filter(isLine) : [];
  } catch {
    return [];
  }
}

export const countOf = (lines: readonly CartLine[]) => lines.reduce((sum, line) => sum + line.quantity, 0);

/** How adding went: 'full' when the cart holds as many eSIMs as one order may (CART_MAX_ESIMS), or as many of that plan. */
export type AddOutcome = 'added' | 'full';

/** One more eSIM of a plan, at the price the page shows now. */
export function withOneMore(lines: readonly CartLine[], planId: string, price: Price): { lines: CartLine[]; outcome: AddOutcome } {
  const line = lines.find((l) => l.planId === planId);
  if (countOf(lines) >= CART_MAX_ESIMS || (line && line.quantity >= CART_MAX_PER_PLAN)) return { lines: [...lines], outcome: 'full' };
  return {
    lines: line
      ? lines.map((l) => (l === line ? { ...l, quantity: l.quantity + 1, price } : l))
      : [...lines, { planId, quantity: 1, price }],
    outcome: 'added',
  };
}

function read(): CartLine[] {
  try {
    return parseCart(localStorage.getItem(CART_STORAGE_KEY));
  } catch {
    return [];
  }
}

function write(lines: readonly CartLine[] | null): void {
  try {
    if (lines) localStorage.setItem(CART_STORAGE_KEY, JSON.stringify(lines));
    else localStorage.removeItem(CART_STORAGE_KEY);
  } catch {
    // Storage refused (a private mode, full): the cart lives as long as the page.
  }
  window.dispatchEvent(new Event(CART_CHANGE_EVENT));
}

/** How many eSIMs the stored cart holds (the header's count). */
export const storedCartCount = () => countOf(read());

/** Adds one eSIM of a plan to the stored cart (the package page's Add to cart). */
export function addToStoredCart(planId: string, price: Price): AddOutcome {
  const { lines, outcome } = withOneMore(read(), planId, price);
  if (outcome === 'added') write(lines);
  return outcome;
}

/** Paid: the stored cart is done with. */
export const forgetStoredCart = () => write(null);

/**
 * An exchange the buyer started in My eSIMs (issue 32 item 5): their unused eSIM, bought for the
 * wrong destination, carried to the checkout of the plan they choose in the store, where POST
 * /orders names it (exchangeOf). Kept for this tab only (sessionStorage): closing it forgets it.
 */
export interface ExchangeIntent {
  /** The eSIM's id (its order's). */
  id: string;
  /** Its destination's name, in the page's language, for the checkout's notice. */
  destinationName: string;
}

const KEY = 'esim-exchange';

export function saveExchangeIntent(intent: ExchangeIntent): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(intent));
  } catch {
    // Storage refused (private mode, full): the buyer simply buys; no exchange is named.
  }
}

export function readExchangeIntent(): ExchangeIntent | undefined {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    if (typeof value !== 'object' || value === null) return undefined;
    const { id, destinationName } = value as Record<string, unknown>;
    return typeof id === 'string' && typeof destinationName === 'string' ? { id, destinationName } : undefined;
  } catch {
    return undefined;
  }
}

export function clearExchangeIntent(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}

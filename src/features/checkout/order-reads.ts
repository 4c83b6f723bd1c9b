import { ORDER_WAIT_MS } from '../../config/constants.ts';
import type { OrderView } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { API_BASE_URL } from '../../shop-client/api-base.ts';
import { createShopClient, type ShopClient } from '../../shop-client/shop-client.ts';
import type { EarlyOrderReads } from './early-order.ts';

/**
 * The payment success page's first two asks for its order, made together: a read answered at
 * once (the page shows the order) and the first long-poll (answered when the order changes: paid,
 * delivered), so the wait is open at the API while the page renders.
 */
export interface OrderReads {
  read: Promise<OrderView>;
  poll: Promise<OrderView>;
  /** Ends the long-poll (leaving the page): the API stops waiting for it. */
  abort(): void;
}

export function startOrderReads(getOrder: ShopClient['getOrder'], id: string, lang: Locale): OrderReads {
  const leaving = new AbortController();
  const read = getOrder(id, lang);
  const poll = getOrder(id, lang, { waitMs: ORDER_WAIT_MS, signal: leaving.signal });
  // Answers nobody takes (the page showed the order's end, or left) are no unhandled rejections.
  read.catch(() => {});
  poll.catch(() => {});
  return { read, poll, abort: () => leaving.abort() };
}

/**
 * The asks the page's own script sent for order `id` in `lang` (early-order.ts), read through the
 * shop client as the island reads its own (the same checks, the same errors); once (a retry asks
 * anew). Undefined when it sent none.
 */
export async function takeEarlyOrderReads(id: string, lang: Locale): Promise<OrderReads | undefined> {
  const early: EarlyOrderReads | undefined = window.esimEarlyOrderReads;
  window.esimEarlyOrderReads = undefined;
  if (early?.id !== id || early.lang !== lang) return undefined;
  const sent = await early.responses.catch(() => undefined);
  if (!sent) return undefined;
  // The token went with the requests already; a client that sends what was sent.
  const answer = (response: Promise<Response>) =>
    createShopClient({ baseUrl: API_BASE_URL, idToken: () => Promise.resolve(''), fetch: () => response }).getOrder(id, lang);
  const read = answer(sent.read);
  const poll = answer(sent.poll);
  read.catch(() => {});
  poll.catch(() => {});
  return { read, poll, abort: sent.abort };
}

import { ORDER_WAIT_MS } from '../../config/constants.ts';
import { API_BASE_URL } from '../../shop-client/api-base.ts';
import { storedIdToken } from '../auth/stored-token.ts';

/**
 * The payment success page's first two asks for its order (a read answered at once, and the first
 * long-poll), sent by the page's own script as it loads (issue 31 item 3): before Firebase has
 * restored the session, and before the page's island has loaded, with the ID token Firebase
 * stored on this device (stored-token.ts) when there is one still valid; else nothing is sent,
 * and the island asks once Firebase is ready. The island takes the answers (order-reads.ts
 * takeEarlyOrderReads reads them through the shop client, as it reads its own).
 *
 * Handed over on `window` rather than through a module both import (the island imports only this
 * file's types): the page's script then loads no chunk it shares with the island, the fewest round
 * trips before the asks leave.
 */
export interface EarlyOrderReads {
  id: string;
  lang: string;
  /** Undefined when nothing was sent (no usable stored token). */
  responses: Promise<{ read: Promise<Response>; poll: Promise<Response>; abort(): void } | undefined>;
}

declare global {
  interface Window {
    /** Set by startEarlyOrderReads, taken by the island (order-reads.ts takeEarlyOrderReads). */
    esimEarlyOrderReads?: EarlyOrderReads | undefined;
  }
}

/** Marks on the page's performance timeline (Resource Timing has the requests): what `npm run bench` reads. */
export const EARLY_MARKS = { started: 'early-order-reads:started', token: 'early-order-reads:token' } as const;

export function startEarlyOrderReads(): void {
  performance.mark(EARLY_MARKS.started);
  const id = new URLSearchParams(window.location.search).get('order');
  if (!id) return;
  const lang = document.documentElement.lang;
  const url = `${API_BASE_URL}/orders/${encodeURIComponent(id)}?lang=${encodeURIComponent(lang)}`;
  window.esimEarlyOrderReads = {
    id,
    lang,
    responses: storedIdToken().then((token) => {
      if (!token) return undefined;
      performance.mark(EARLY_MARKS.token);
      const headers = { Authorization: `Bearer ${token}` };
      const leaving = new AbortController();
      const read = fetch(url, { headers });
      const poll = fetch(`${url}&waitMs=${ORDER_WAIT_MS}`, { headers, signal: leaving.signal });
      // Answers the island never takes (it failed to load, the visitor left) are no unhandled rejections.
      read.catch(() => {});
      poll.catch(() => {});
      return { read, poll, abort: () => leaving.abort() };
    }),
  };
}

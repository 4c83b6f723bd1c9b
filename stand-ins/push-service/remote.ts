import type { PushServiceStandIn, ReceivedPushMessage } from './server.ts';

/** How often `waitFor` asks the stand-in what it received. */
const POLL_MS = 200;

/**
 * The stand-in another process runs (scripts/local-shop.ts, for npm start and the browser tests),
 * through its HTTP control: subscription endpoints on it, and what it received.
 */
export function pushServiceStandInAt(url: string): Pick<PushServiceStandIn, 'url' | 'endpoint' | 'waitFor'> & {
  /** What it received so far (of one subscription, given its id), in order. */
  received(id?: string): Promise<ReceivedPushMessage[]>;
} {
  const origin = new URL(url).origin;
  async function received(id?: string): Promise<ReceivedPushMessage[]> {
    const response = await fetch(`${origin}/_stand-in/messages${id === undefined ? '' : `?id=${encodeURIComponent(id)}`}`);
    if (!response.ok) throw new Error(`push-service stand-in at ${origin}: ${response.status}`);
    const listed = (await response.json()) as (Omit<ReceivedPushMessage, 'body' | 'receivedAt'> & { body: string; receivedAt: string })[];
    return listed.map((m) => ({ ...m, body: Buffer.from(m.body, 'base64url'), receivedAt: new Date(m.receivedAt) }));
  }
  return {
    url: origin,
    received,
    endpoint: (id = crypto.randomUUID()) => `${origin}/push/${id}`,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await received()).find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`push-service stand-in at ${origin}: no such message within ${timeoutMs} ms`);
        await new Promise((wait) => setTimeout(wait, POLL_MS));
      }
    },
  };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ORDER_WAIT_MS } from '../../src/config/constants.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { sellablePlans } from '../../src/server/orders/plans.ts';
import { signUpOn } from './auth-emulator.ts';
import { connectToApiPostgres, percentile, startBenchShop } from './shop-bench.ts';

/**
 * Issue 15's figure: from the payment to the QR code on the success page, over 20 purchases, with
 * the shop API in its own process (scripts/local-shop.ts) on a real PostgreSQL server and the
 * stand-ins (the partner allocates after 1 s, as `npm start` has it). Each purchase pays on the
 * Stripe stand-in's page; the clock starts when the payment is accepted (the webhook leaves then)
 * and stops when GET /orders/{id} first answers the install codes, asked as the success page
 * asks (issue 22: long-polls, GET /orders/{id}?waitMs, each answered as soon as the order changes).
 * Issue 22's figure beside it: from the allocation (the delivery's commit, order_events' 'delivered'
 * by the database's clock, on this machine) to the QR code's answer.
 */
export interface DeliveryFigures {
  purchases: number;
  allocationDelayMs: number;
  /** From the payment page's return to the QR code. */
  qrP50Ms: number;
  qrP95Ms: number;
  qrMaxMs: number;
  /** From the allocation stored (the order delivered) to the QR code; null if the database could not be read. */
  afterAllocationP50Ms: number | null;
  afterAllocationP95Ms: number | null;
  afterAllocationMaxMs: number | null;
}

const PURCHASES = 20;
const ALLOCATION_DELAY_MS = 1_000;
export async function benchDelivery(port = 8799): Promise<DeliveryFigures> {
  const mailDir = mkdtempSync(join(tmpdir(), 'bench-mail-'));
  const { api, authHost, pid, stop } = await startBenchShop(port, [
    '--mail-dir',
    mailDir,
    '--allocation-delay-ms',
    String(ALLOCATION_DELAY_MS),
  ]);
  const plan = sellablePlans(embeddedSnapshot()).get('de-1gb-7d')!;
  // The API's PostgreSQL server and its database (scripts/lib/postgres-server.ts), for when each order was delivered (Linux only; else no such figure).
  const db = await connectToApiPostgres(pid, 'shop_test');
  try {
    const samples: number[] = [];
    const afterAllocation: number[] = [];
    for (let i = 0; i < PURCHASES; i++) {
      const buyer = await signUpOn(authHost);
      const headers = { Authorization: `Bearer ${buyer.idToken}`, 'Content-Type': 'application/json' };
      const created = await fetch(`${api}/orders`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          planId: plan.pkg.id,
          lang: 'en',
          expectedPrice: plan.price,
          consents: { terms: true, immediateStart: true },
        }),
      });
      const { order, checkoutUrl } = (await created.json()) as { order: { id: string }; checkoutUrl: string };
      const paid = await fetch(checkoutUrl, {
        method: 'POST',
        body: new URLSearchParams({ action: 'pay', card: '4242424242424242' }),
        redirect: 'manual',
      });
      if (paid.status !== 303) throw new Error(`the stand-in did not take the payment: ${paid.status}`);
      const started = performance.now();
      // The success page's first read answers at once; the ones after are long-polls.
      for (let wait = 0; ; wait = ORDER_WAIT_MS) {
        const view = (await (await fetch(`${api}/orders/${order.id}?lang=en&waitMs=${wait}`, { headers })).json()) as {
          state: string;
          esim?: { install: unknown } | null;
        };
        if (view.esim?.install) break;
        if (performance.now() - started > 60_000) throw new Error(`order ${order.id} not delivered within a minute (${view.state})`);
      }
      const shownAt = Date.now();
      samples.push(performance.now() - started);
      if (db) {
        const { rows } = await db.query<{ at: Date }>("SELECT at FROM order_events WHERE order_id = $1 AND to_state = 'delivered'", [
          order.id,
        ]);
        if (rows[0]) afterAllocation.push(shownAt - rows[0].at.getTime());
      }
    }
    const sorted = [...samples].sort((a, b) => a - b);
    return {
      purchases: PURCHASES,
      allocationDelayMs: ALLOCATION_DELAY_MS,
      qrP50Ms: percentile(sorted, 50),
      qrP95Ms: percentile(sorted, 95),
      qrMaxMs: sorted.at(-1)!,
      ...afterAllocationFigures(afterAllocation),
    };
  } finally {
    await db?.end();
    await stop();
    rmSync(mailDir, { recursive: true, force: true });
  }
}

function afterAllocationFigures(
  samples: number[],
): Pick<DeliveryFigures, 'afterAllocationP50Ms' | 'afterAllocationP95Ms' | 'afterAllocationMaxMs'> {
  if (samples.length === 0) return { afterAllocationP50Ms: null, afterAllocationP95Ms: null, afterAllocationMaxMs: null };
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    afterAllocationP50Ms: percentile(sorted, 50),
    afterAllocationP95Ms: percentile(sorted, 95),
    afterAllocationMaxMs: sorted.at(-1)!,
  };
}

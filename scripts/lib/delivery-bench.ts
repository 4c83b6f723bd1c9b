import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESIM_POLL_INTERVAL_MS, ORDER_POLL_INTERVAL_MS } from '../../src/config/constants.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { sellablePlans } from '../../src/server/orders/plans.ts';
import { signUpOn } from './auth-emulator.ts';
import { percentile, startBenchShop } from './shop-bench.ts';

/**
 * Issue 15's figure: from the payment to the QR code on the success page, over 20 purchases, with
 * the shop API in its own process (scripts/local-shop.ts) on a real PostgreSQL server and the
 * stand-ins (the partner allocates after 1 s, as `npm start` has it). Each purchase pays on the
 * Stripe stand-in's page; the clock starts when the payment is accepted (the webhook leaves then)
 * and stops when GET /orders/{id} first answers the install codes, asked at the success page's
 * own cadence (2 s while the payment is unconfirmed, 1 s while the eSIM is prepared).
 */
export interface DeliveryFigures {
  purchases: number;
  allocationDelayMs: number;
  qrP50Ms: number;
  qrP95Ms: number;
  qrMaxMs: number;
}

const PURCHASES = 20;
const ALLOCATION_DELAY_MS = 1_000;
export async function benchDelivery(port = 8799): Promise<DeliveryFigures> {
  const mailDir = mkdtempSync(join(tmpdir(), 'bench-mail-'));
  const { api, authHost, stop } = await startBenchShop(port, ['--mail-dir', mailDir, '--allocation-delay-ms', String(ALLOCATION_DELAY_MS)]);
  const plan = sellablePlans(embeddedSnapshot()).get('de-1gb-7d')!;
  try {
    const samples: number[] = [];
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
      for (;;) {
        const view = (await (await fetch(`${api}/orders/${order.id}?lang=en`, { headers })).json()) as {
          state: string;
          esim?: { install: unknown } | null;
        };
        if (view.esim?.install) break;
        if (performance.now() - started > 60_000) throw new Error(`order ${order.id} not delivered within a minute (${view.state})`);
        await new Promise((done) => setTimeout(done, view.state === 'pending_payment' ? ORDER_POLL_INTERVAL_MS : ESIM_POLL_INTERVAL_MS));
      }
      samples.push(performance.now() - started);
    }
    const sorted = [...samples].sort((a, b) => a - b);
    return {
      purchases: PURCHASES,
      allocationDelayMs: ALLOCATION_DELAY_MS,
      qrP50Ms: percentile(sorted, 50),
      qrP95Ms: percentile(sorted, 95),
      qrMaxMs: sorted.at(-1)!,
    };
  } finally {
    await stop();
    rmSync(mailDir, { recursive: true, force: true });
  }
}

import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, payOnStandIn, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, EsimSteps, OrderView } from '../contract/shop-api.ts';
import { sellablePlans } from './orders/plans.ts';

/**
 * Issue 22: the payment success page's long-poll (GET /orders/{id}?waitMs=n answers within moments
 * of the delivery) and My eSIMs' live install steps (the partner's SMDP_EVENT and ESIM_STATUS read
 * back and stored; GET /esims/steps reads them from the database only).
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;

// On both drivers (tests/support/databases.ts): LISTEN/NOTIFY wakes the waits.
describe.each(databaseDrivers())('live status on $name', (driver) => {
  // The partner allocates a second after the order, as the bench's stand-in does.
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329', allocationDelayMs: 1000 });
  const { call } = bed;

  async function open(token: string) {
    const created = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token, body: JSON.stringify(orderRequest(PLAN)) })).json(),
    );
    return created;
  }
  /** One long-poll: its answer and when it came. */
  async function longPoll(token: string, id: string, waitMs: number) {
    const asked = Date.now();
    const order = OrderView.parse(await (await call(`/orders/${id}?lang=en&waitMs=${waitMs}`, { token })).json());
    return { order, asked, answeredAt: Date.now() };
  }

  it('answers within 300 ms of the delivery, each state change at once', async () => {
    const buyer = await signUp();
    const created = await open(buyer.idToken);
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    // As the page does: long-poll again after every answer, until the eSIM is there.
    const seen: string[] = [];
    let last;
    for (let i = 0; i < 10; i++) {
      last = await longPoll(buyer.idToken, created.order.id, 25_000);
      seen.push(last.order.state);
      if (last.order.state === 'delivered' && last.order.esim?.install) break;
    }
    expect(last!.order.esim?.install?.qrSvg).toMatch(/^<svg/);
    expect(seen.at(-1)).toBe('delivered');
    const [delivered] = await bed.db.query<{ at: Date }>("SELECT at FROM order_events WHERE order_id = $1 AND to_state = 'delivered'", [
      created.order.id,
    ]);
    const late = last!.answeredAt - new Date(delivered!.at).getTime();
    expect(late).toBeLessThan(300);
  });

  it('answers at once when nothing is pending, and after the wait with the current state when nothing changed', async () => {
    const buyer = await signUp();
    const created = await open(buyer.idToken);
    // Not paid: nothing changes, so the answer comes when the wait ends, still pending_payment.
    const waited = await longPoll(buyer.idToken, created.order.id, 1200);
    expect(waited.order.state).toBe('pending_payment');
    expect(waited.answeredAt - waited.asked).toBeGreaterThanOrEqual(1150);
    expect(waited.answeredAt - waited.asked).toBeLessThan(3000);

    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    await waitFor(
      async () => (await longPoll(buyer.idToken, created.order.id, 0)).order,
      (o) => o.state === 'delivered' && !!o.esim,
    );
    const done = await longPoll(buyer.idToken, created.order.id, 25_000);
    expect(done.order.state).toBe('delivered');
    expect(done.answeredAt - done.asked).toBeLessThan(1000);

    // A wait beyond 25 s is refused, not held.
    expect((await call(`/orders/${created.order.id}?waitMs=60000`, { token: buyer.idToken })).status).toBe(400);
  });

  it('stores each install step the partner notifies, with its time, and GET /esims/steps asks the partner nothing', async () => {
    const buyer = await signUp();
    const created = await open(buyer.idToken);
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const steps = async () => EsimSteps.parse(await (await call('/esims/steps', { token: buyer.idToken })).json()).esims;
    const released = await waitFor(steps, (list) => list[0]?.installStep === 'released');
    expect(released[0]).toMatchObject({ id: created.order.id, status: 'ready', installStepAt: expect.any(String) });

    const partner = bed.stand.partner;
    const tranNo = partner.tranNoOfTransaction(created.order.id)!;
    const wanted = { DOWNLOAD: 'downloaded', INSTALLATION: 'installed', ENABLED: 'enabled', IN_USE: 'in_use', DELETED: 'deleted' } as const;
    let before = released[0]!.installStepAt!;
    for (const [stage, step] of Object.entries(wanted) as [keyof typeof wanted, (typeof wanted)[keyof typeof wanted]][]) {
      partner.installTo(tranNo, stage);
      const now = (await waitFor(steps, (list) => list[0]?.installStep === step))[0]!;
      expect(Date.parse(now.installStepAt!)).toBeGreaterThan(Date.parse(before));
      before = now.installStepAt!;
      // Installed from the download on: the refund rules still read it so.
      expect(now.status).toBe('active');
    }
    // Polling the steps reads the database only.
    const asked = partner.requests.length;
    for (let i = 0; i < 5; i++) await steps();
    expect(partner.requests.length).toBe(asked);
  });
});

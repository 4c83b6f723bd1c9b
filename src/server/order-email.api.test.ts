import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, payOnStandIn, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, OrderView } from '../contract/shop-api.ts';
import { sellablePlans } from './orders/plans.ts';
import { buyersRefund } from './refunds/refund-command.ts';

/**
 * A delivered eSIM whose e-mail has not gone yet (the relay down, or a process stopped between the
 * delivery and the e-mail) and whose buyer asks for a refund meanwhile. Found by the fault run: the
 * order e-mail stayed owed for ever. Refunded, the refund e-mail is the one it gets; installed
 * before the refund (so kept), its own e-mail still goes. The database driver plays no part.
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('an order e-mail owed when its refund is asked, on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329' });
  const { call } = bed;
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=en`, { token })).json());
  const emailsOf = async (id: string) =>
    (await bed.db.query<{ kind: string }>('SELECT kind FROM order_emails WHERE order_id = $1 ORDER BY sent_at', [id])).map((r) => r.kind);
  const owed = async (id: string) =>
    (await bed.db.query<{ kind: string }>('SELECT kind FROM email_outbox WHERE order_id = $1 AND sent_at IS NULL', [id])).map(
      (r) => r.kind,
    );

  /** A delivered eSIM whose e-mail could not go: the relay is down until the test brings it back. */
  async function deliveredUnmailed() {
    const buyer = await signUp();
    bed.stand.smtp.setDown(true);
    const created = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) })).json(),
    );
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const id = created.order.id;
    const delivered = await waitFor(
      () => readOrder(buyer.idToken, id),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );
    expect(delivered.state).toBe('delivered');
    await bed.handler.fulfilment.settled();
    expect(await owed(id)).toEqual(['order']);
    return { buyer, id };
  }

  /** The relay works again; the order's job is run until nothing is owed (or 10 s). */
  async function relayBack(id: string) {
    bed.stand.smtp.setDown(false);
    await waitFor(
      () => bed.handler.fulfilment.run(id).then(() => owed(id)),
      (left) => left.length === 0,
    );
  }

  it('an eSIM refunded before its e-mail went gets the refund e-mail, not the eSIM, and nothing stays owed', async () => {
    const { buyer, id } = await deliveredUnmailed();
    await bed.handler.fulfilment.requestRefund(buyersRefund(id));
    await relayBack(id);
    expect((await readOrder(buyer.idToken, id)).state).toBe('refunded');
    expect(await emailsOf(id)).toEqual(['refund']);
    expect(await owed(id)).toEqual([]);
  });

  it('an eSIM installed before its refund stays the buyer’s, and its e-mail still goes once the relay is back', async () => {
    const { buyer, id } = await deliveredUnmailed();
    // Installed on the phone; the partner's notification has not reached the shop yet.
    bed.stand.partner.setWebhookUrl(undefined);
    bed.stand.partner.markInstalled(bed.stand.partner.tranNoOfTransaction(id)!);
    await bed.handler.fulfilment.requestRefund(buyersRefund(id));
    await relayBack(id);
    bed.stand.connect(`${bed.api.url}/api`);
    expect((await readOrder(buyer.idToken, id)).state).toBe('delivered');
    expect(await emailsOf(id)).toEqual(['order']);
    expect(await owed(id)).toEqual([]);
    const jobs = await bed.db.query('SELECT kind, state FROM jobs WHERE order_id = $1', [id]);
    expect(jobs).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, partnerSettled, payOnStandIn, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { CreateOrderResponse, EsimList, EsimView } from '../contract/shop-api.ts';
import { sellablePlans } from './orders/plans.ts';

/**
 * Issue 32 item 2: "Not working?" reads the eSIM's state from the partner (GET /esims/{id}/diagnosis),
 * so a notification that never came does not mislead it, at most once a minute per eSIM (the
 * shared partner budget), the owner's alone, and the last known state when the partner cannot answer.
 */
const catalogue = embeddedSnapshot();
const PLAN = sellablePlans(catalogue).get('de-1gb-7d')!;

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('the eSIM diagnosis read on $name', (driver) => {
  const bed = shopTestBed(driver, { catalogue, siteUrl: 'http://127.0.0.1:4329' });
  const { call } = bed;
  const queries = () => bed.stand.partner.requests.filter((r) => r.call === 'esim/query').length;

  /** A buyer with a delivered eSIM, installed and turned on at the partner, which the shop still thinks ready to install. */
  async function turnedOnUnheard() {
    const buyer = await signUp();
    const created = CreateOrderResponse.parse(
      await (await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) })).json(),
    );
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    const mine = async () => EsimList.parse(await (await call('/esims?lang=en', { token: buyer.idToken })).json()).esims;
    await waitFor(mine, (list) => list[0]?.installStep === 'released');
    const tranNo = bed.stand.partner.tranNoOfTransaction(created.order.id)!;
    bed.stand.partner.installTo(tranNo, 'ENABLED');
    await waitFor(mine, (list) => list[0]?.installStep === 'enabled');
    await partnerSettled(bed.stand.partner);
    // The notifications lost: the shop's record goes back to before the install.
    await bed.db.query("UPDATE esims SET status = 'ready', installed = false, install_step = 'released' WHERE esim_tran_no = $1", [tranNo]);
    return { buyer, id: created.order.id, tranNo };
  }
  const diagnosis = (id: string, token: string) => call(`/esims/${id}/diagnosis?lang=en`, { token });

  it('reads the eSIM’s state from the partner, at most once a minute per eSIM', async () => {
    const { buyer, id } = await turnedOnUnheard();
    const before = queries();
    const read = EsimView.parse(await (await diagnosis(id, buyer.idToken)).json());
    expect(read).toMatchObject({ id, status: 'active', installStep: 'enabled', refundable: false });
    expect(queries()).toBe(before + 1);
    // The stored record follows: My eSIMs says so too, without asking the partner.
    const listed = EsimList.parse(await (await call('/esims?lang=en', { token: buyer.idToken })).json()).esims;
    expect(listed[0]).toMatchObject({ installStep: 'enabled', status: 'active' });

    // Asked again within the minute (another tab, a double click): the stored state, the partner not asked.
    for (let i = 0; i < 3; i++) expect((await diagnosis(id, buyer.idToken)).status).toBe(200);
    expect(queries()).toBe(before + 1);
    // A minute on, it is read again.
    await bed.db.query("UPDATE esims SET state_read_at = now() - interval '61 seconds'");
    expect((await diagnosis(id, buyer.idToken)).status).toBe(200);
    expect(queries()).toBe(before + 2);
  });

  it('answers the last known state when the partner cannot answer, and only to the eSIM’s owner', async () => {
    const { buyer, id } = await turnedOnUnheard();
    bed.stand.partner.failNext({ status: 500 }, { call: 'esim/query', count: 5 });
    const read = await diagnosis(id, buyer.idToken);
    expect(read.status).toBe(200);
    expect(EsimView.parse(await read.json())).toMatchObject({ id, status: 'ready', installStep: 'released' });

    const stranger = await signUp();
    expect((await diagnosis(id, stranger.idToken)).status).toBe(404);
    expect((await diagnosis('not-an-id', buyer.idToken)).status).toBe(404);
    expect((await call(`/esims/${id}/diagnosis?lang=en`)).status).toBe(401);
  });
});

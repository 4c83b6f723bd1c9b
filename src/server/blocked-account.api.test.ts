import { describe, expect, inject, it } from 'vitest';
import { signIn, signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { productionLikeAccounts } from '../../tests/support/production-accounts.ts';
import { orderRequest, payOnStandIn, testCatalogue, topUpRequest, untilDelivered, untilInstalled } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { ApiError, CreateOrderResponse, OrderList, OrderView, TopUpPlans, type CreateOrderRequest } from '../contract/shop-api.ts';
import { firebaseAccounts } from './auth.ts';

/**
 * The buyer's side of a blocked account (issue 30 item 6). The provider blocks an account by
 * disabling it in Firebase and revoking its refresh tokens (Accounts.setDisabled): from then on
 * its writes (a new eSIM, a top-up, a refund request) answer 403 account_blocked and change
 * nothing, the Auth emulator refuses its refresh token and its password, and once unblocked the
 * buyer signs in again and orders as before. Against the real Auth emulator, with tokens checked
 * as in production (productionLikeAccounts): a read looks nothing up, a write asks Firebase.
 */
const { catalogue, PLAN } = testCatalogue();
const accounts = firebaseAccounts('demo-esim');

/** Firebase's token refresh as the site's SDK makes it, against the run's Auth emulator. */
async function refresh(refreshToken: string) {
  const response = await fetch(`http://${inject('authEmulatorHost')}/securetoken.googleapis.com/v1/token?key=any`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
  return { status: response.status, body: (await response.json()) as { id_token?: string; error?: { message?: string } } };
}

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('a blocked account on $name', (driver) => {
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: 'http://127.0.0.1:4334',
    allocationDelayMs: 200,
    api: () => ({ accounts: productionLikeAccounts('demo-esim') }),
  });
  const { call } = bed;
  const postOrder = (token: string, request: CreateOrderRequest) =>
    call('/orders', { method: 'POST', token, body: JSON.stringify(request) });
  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const ordersOf = async (uid: string) => (await bed.db.query('SELECT id FROM orders WHERE uid = $1', [uid])).length;
  const tranNo = (orderId: string) => bed.stand.partner.tranNoOfTransaction(orderId)!;

  /** A paid eSIM of PLAN, delivered with its install codes (installed on a phone when asked). */
  async function deliveredEsim(token: string, { installed }: { installed: boolean }) {
    const response = await postOrder(token, orderRequest(PLAN));
    expect(response.status).toBe(201);
    const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(checkoutUrl, '4242424242424242')).status).toBe(303);
    const read = () => readOrder(token, order.id);
    const delivered = await untilDelivered(read);
    return installed ? untilInstalled(read, () => bed.stand.partner.markInstalled(tranNo(order.id))) : delivered;
  }
  async function expectBlocked(response: Response) {
    expect(response.status).toBe(403);
    const body = ApiError.parse(await response.json());
    expect(body.error.code).toBe('account_blocked');
    expect(body.error.message).toMatch(/blocked.*contact support/);
  }

  it('refuses a blocked buyer’s new eSIM, top-up and refund request with 403 account_blocked, and takes them again once unblocked', async () => {
    const buyer = await signUp();
    const signedUpAt = Date.now();
    const onPhone = await deliveredEsim(buyer.idToken, { installed: true });
    const unused = await deliveredEsim(buyer.idToken, { installed: false });
    const topUp = TopUpPlans.parse(await (await call(`/esims/${onPhone.id}/top-ups?lang=de`, { token: buyer.idToken })).json()).plans[0]!;
    const before = await ordersOf(buyer.uid);

    // Revocation counts in whole seconds: a block in the same second as the sign-in would leave that
    // token good (below, it must be revoked). A fast machine buys both eSIMs within that second.
    await new Promise((done) => setTimeout(done, Math.max(0, signedUpAt + 1100 - Date.now())));
    await accounts.setDisabled(buyer.uid, true);
    // The ID token the page holds is still within its hour: every write asks the accounts service.
    await expectBlocked(await postOrder(buyer.idToken, orderRequest(PLAN)));
    await expectBlocked(await postOrder(buyer.idToken, topUpRequest(topUp, onPhone.id)));
    await expectBlocked(await call(`/esims/${unused.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken }));
    expect(await ordersOf(buyer.uid)).toBe(before);
    // Reads do not ask (no lookup per read, as in production): with the token of before the block
    // the buyer still sees their orders and eSIMs, nothing refunded, until the token's hour is over
    // (its refresh is refused, below). With firebase-admin on the Auth emulator itself every token
    // is looked up, so there a read answers 403 account_blocked as well.
    expect((await readOrder(buyer.idToken, unused.id)).state).toBe('delivered');
    const list = await call('/orders?lang=de', { token: buyer.idToken });
    expect(list.status).toBe(200);
    expect(OrderList.parse(await list.json()).orders.map((o) => o.id)).toEqual(expect.arrayContaining([onPhone.id, unused.id]));
    expect((await call('/esims?lang=de', { token: buyer.idToken })).status).toBe(200);

    await accounts.setDisabled(buyer.uid, false);
    // The old token was revoked with the block: a write with it is refused as signed out (401), not as blocked.
    const stale = await postOrder(buyer.idToken, orderRequest(PLAN));
    expect(stale.status).toBe(401);
    expect(ApiError.parse(await stale.json()).error.code).toBe('unauthorized');
    // Signed in again, the buyer orders, tops up and asks for the refund as before.
    const again = await signIn(buyer.email);
    expect((await postOrder(again.idToken, orderRequest(PLAN))).status).toBe(201);
    expect((await postOrder(again.idToken, topUpRequest(topUp, onPhone.id))).status).toBe(201);
    const refund = await call(`/esims/${unused.id}/refund?lang=de`, { method: 'POST', token: again.idToken });
    expect(refund.status).toBe(200);
  });

  it('a blocked buyer cannot get a new ID token: the Auth emulator refuses the refresh token and the password', async () => {
    const buyer = await signUp();
    const fresh = await refresh(buyer.refreshToken);
    expect(fresh.status).toBe(200);
    expect(fresh.body.id_token).toBeTruthy();

    await accounts.setDisabled(buyer.uid, true);
    const refused = await refresh(buyer.refreshToken);
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toMatch(/USER_DISABLED/);
    await expect(signIn(buyer.email)).rejects.toThrow(/USER_DISABLED/);

    await accounts.setDisabled(buyer.uid, false);
    const signedIn = await signIn(buyer.email);
    expect((await postOrder(signedIn.idToken, orderRequest(PLAN))).status).toBe(201);
    expect(await ordersOf(buyer.uid)).toBe(1);
  });

  it('a token revoked without a block stays 401 unauthorized', async () => {
    const buyer = await signUp();
    // Revocation counts in whole seconds: a token of the same second as it would still be good.
    await new Promise((done) => setTimeout(done, 1100));
    // What ops:grant does to apply a role at once: sessions revoked, account enabled.
    await accounts.setRole(buyer.uid, undefined);
    const response = await postOrder(buyer.idToken, orderRequest(PLAN));
    expect(response.status).toBe(401);
    expect(ApiError.parse(await response.json()).error.code).toBe('unauthorized');
  });
});

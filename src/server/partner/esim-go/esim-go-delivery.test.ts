import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAILURES, startEsimGoStandIn, type EsimGoStandIn, type EsimGoStandInOptions } from '../../../../stand-ins/esim-go/server.ts';
import { partnerFailure } from '../../../../tests/support/partner-failure.ts';
import type { EsimPartner, EsimProfile } from '../partner.types.ts';
import { createEsimGoPartner } from './adapter.ts';
import type { EsimGoConfig } from './config.ts';

// The adapter's delivery calls against the eSIM Go stand-in over real HTTP: ordering (idempotent by
// transactionId, settled by reading after a lost answer), profiles, cancel, suspension, top-ups, usage.
const API_KEY = 'delivery-test-key';
const SMDP = 'rsp.esim-go.stand-in.invalid';
const GERMANY = 'esim_1GB_7D_DE_V2';
const DAY_MS = 86_400_000;

let standIn: EsimGoStandIn;
const start = async (options: Partial<EsimGoStandInOptions> = {}) => {
  standIn = await startEsimGoStandIn({ apiKey: API_KEY, ...options });
};
beforeEach(() => start());
afterEach(() => standIn.close());

const partner = (config: Partial<EsimGoConfig> = {}): EsimPartner =>
  createEsimGoPartner({ baseUrl: standIn.url, apiKey: API_KEY, backoffMs: 10, ...config });
const priceOf = (name: string) => Math.round(standIn.bundles.find((b) => b.name === name)!.price * 10_000);
const isTransaction = (body: unknown) => (body as { type?: string } | undefined)?.type === 'transaction';
const calls = () => standIn.requests.map((r) => r.call);

/** A delivery as the shop makes it: the order, whose answer names the eSIM, then the label once stored. */
async function delivered(client = partner(), transactionId = 'order-1', partnerCode = GERMANY): Promise<EsimProfile> {
  const { profiles } = await client.orderEsim({ transactionId, partnerCode, count: 1 });
  if (!profiles?.[0]) throw new Error('no eSIM in the answer');
  await client.labelEsim!(profiles[0].esimTranNo);
  return profiles[0];
}

describe('orderEsim and queryProfiles', () => {
  it('validates and buys once: two requests to a delivery, answered with its eSIM ready and its LPA string; labelled once stored', async () => {
    const client = partner();
    const { partnerOrderNo, profiles } = await client.orderEsim({
      transactionId: 'order-42',
      partnerCode: GERMANY,
      priceUsdE4: priceOf(GERMANY),
      count: 1,
    });
    // The bundle's facts are read once (they do not change), before anything is bought.
    expect(calls()).toEqual(['POST /orders', 'GET /catalogue/bundle/{name}', 'POST /orders']);
    expect(standIn.requests.filter((r) => r.call === 'POST /orders').map((r) => r.body)).toEqual(
      ['validate', 'transaction'].map((type) => ({
        type,
        assign: true,
        order: [{ type: 'bundle', quantity: 1, item: GERMANY, allowReassign: false }],
      })),
    );
    const [placed] = standIn.ordersPlaced();
    expect(partnerOrderNo).toBe(placed!.orderReference);
    const iccid = placed!.iccids[0]!;
    const [profile, ...more] = profiles ?? [];
    expect(more).toEqual([]);
    expect(profile).toMatchObject({
      esimTranNo: `${iccid}:order-42`,
      transactionId: 'order-42',
      iccid,
      smdpAddress: SMDP,
      apn: null,
      status: 'ready',
      installed: false,
      installStep: 'released',
      totalBytes: 1_000_000_000,
      usedBytes: 0,
      validityDays: 7,
    });
    expect(profile!.activationCode).toBe(`LPA:1$${SMDP}$${profile!.matchingId}`);
    // Before installation: the last day to install it (eSIM Go deletes an eSIM unused for 180 days).
    expect(Math.abs(profile!.expiresAt!.getTime() - (Date.now() + 180 * DAY_MS))).toBeLessThan(60_000);
    expect(standIn.balance).toBeCloseTo(10_000 - priceOf(GERMANY) / 10_000, 2);

    // Not labelled until the shop stored it; then its customerRef is our order.
    expect(standIn.esim(iccid)?.customerRef).toBe('');
    await client.labelEsim!(profile!.esimTranNo);
    expect(standIn.esim(iccid)?.customerRef).toBe('order-42');
    // What the order answered is what eSIM Go holds, read in full.
    const read = await client.queryProfiles({ esimTranNo: profile!.esimTranNo });
    const full = read.status === 'ready' ? read.profiles[0]! : undefined;
    expect({ ...full, expiresAt: null }).toEqual({ ...profile, expiresAt: null });
    expect(Math.abs(full!.expiresAt!.getTime() - profile!.expiresAt!.getTime())).toBeLessThan(60_000);
    // The install details, when the order's answer is not at hand (a restarted instance): one request, the same eSIM.
    const before = standIn.requests.length;
    const again = await client.queryProfiles({ partnerOrderNo, ordered: { transactionId: 'order-42', partnerCode: GERMANY } });
    expect(calls().slice(before)).toEqual(['GET /esims/assignments']);
    expect(again.status === 'ready' && { ...again.profiles[0], expiresAt: null }).toEqual({ ...profile, expiresAt: null });

    // The next delivery of that bundle: validate and transaction.
    const next = standIn.requests.length;
    await client.orderEsim({ transactionId: 'order-43', partnerCode: GERMANY, count: 1 });
    expect(calls().slice(next)).toEqual(['POST /orders', 'POST /orders']);
  });

  it('labels an eSIM sold whose label was lost on its next read', async () => {
    const client = partner({ retries: 0 });
    const [profile] = (await client.orderEsim({ transactionId: 'order-44', partnerCode: GERMANY, count: 1 })).profiles ?? [];
    standIn.failNext(FAILURES.serverError, { call: 'PUT /esims' });
    await expect(client.labelEsim!(profile!.esimTranNo)).rejects.toMatchObject({ call: 'PUT /esims', code: 'HTTP 500' });
    // The label failed, and was read back not written.
    expect(calls().slice(-2)).toEqual(['PUT /esims', 'GET /esims/{iccid}']);
    expect(standIn.esim(profile!.iccid)?.customerRef).toBe('');
    // Its next read finds it unlabelled, labels it, and answers it as the key names it.
    const read = await client.queryProfiles({ esimTranNo: profile!.esimTranNo });
    expect(read.status === 'ready' && read.profiles[0]).toMatchObject({ esimTranNo: profile!.esimTranNo, transactionId: 'order-44' });
    expect(standIn.esim(profile!.iccid)?.customerRef).toBe('order-44');
  });

  it("answers allocating while eSIM Go still processes the order (its 503 'Processing'), then the profile", async () => {
    await standIn.close();
    await start({ processingMs: 1_500 });
    const client = partner();
    const { partnerOrderNo } = await client.orderEsim({ transactionId: 'order-7', partnerCode: GERMANY, count: 1 });
    const ordered = { transactionId: 'order-7', partnerCode: GERMANY };
    await expect(client.queryProfiles({ partnerOrderNo, ordered })).resolves.toEqual({ status: 'allocating' });
    expect(standIn.requests.at(-1)).toMatchObject({ call: 'GET /esims/assignments', status: 503 });
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const answer = await client.queryProfiles({ partnerOrderNo, ordered });
    expect(answer.status === 'ready' && answer.profiles[0]).toMatchObject({ transactionId: 'order-7', status: 'ready' });
  });

  it('refuses, buying nothing: a price that is no longer the one sold at, an unknown bundle, an empty balance', async () => {
    const priceChanged = await partnerFailure(
      partner().orderEsim({ transactionId: 'o-1', partnerCode: GERMANY, priceUsdE4: priceOf(GERMANY) - 100, count: 1 }),
    );
    expect(priceChanged).toMatchObject({ call: 'POST /orders', kind: 'price_changed', retryable: false, refused: true });

    const unknown = await partnerFailure(partner().orderEsim({ transactionId: 'o-2', partnerCode: 'esim_1GB_7D_XX_V2', count: 1 }));
    expect(unknown).toMatchObject({ call: 'POST /orders', code: '400', kind: 'not_found', retryable: false, attempts: 1, refused: true });
    expect(unknown.message).toBe('eSIM Go POST /orders failed: HTTP 400 Bundle esim_1GB_7D_XX_V2 not found');

    standIn.setBalance(0.2);
    const poor = await partnerFailure(partner().orderEsim({ transactionId: 'o-3', partnerCode: GERMANY, count: 1 }));
    expect(poor).toMatchObject({ code: '400', kind: 'insufficient_balance', retryable: false, refused: true });
    expect([standIn.orderCount, standIn.esimCount, standIn.balance]).toEqual([0, 0, 0.2]);
  });

  it('says an eSIM that does not exist, or no longer is the one its key names, is not found', async () => {
    const unknown = await partnerFailure(partner().queryProfiles({ esimTranNo: '8944000000000000001:order-1' }));
    expect(unknown).toMatchObject({ call: 'GET /esims/{iccid}', code: '403', kind: 'not_found', retryable: false });
    const junk = await partnerFailure(partner().queryProfiles({ esimTranNo: 'not-a-key' }));
    expect(junk).toMatchObject({ kind: 'not_found', retryable: false });
    const profile = await delivered();
    const other = await partnerFailure(partner().queryProfiles({ esimTranNo: `${profile.iccid}:another-order` }));
    expect(other).toMatchObject({ kind: 'not_found', retryable: false });
  });
});

describe('a lost answer: the transaction is never sent again, nor its eSIM given to an order', () => {
  it('sends a transaction once; one whose answer was lost leaves an unlabelled eSIM that no order is ever given', async () => {
    const placedAround = new Date();
    standIn.failNext(FAILURES.lostAnswer, { call: 'POST /orders', where: isTransaction });
    const lost = await partnerFailure(partner().orderEsim({ transactionId: 'order-x', partnerCode: GERMANY, count: 1 }));
    // Not refused: it may have been applied (it was), and the client did not send it again.
    expect(lost).toMatchObject({ call: 'POST /orders', code: undefined, retryable: true, refused: false, attempts: 1 });
    expect(standIn.requests.filter((r) => r.call === 'POST /orders' && isTransaction(r.body))).toHaveLength(1);
    const [orphan] = standIn.ordersPlaced();
    expect(standIn.esim(orphan!.iccids[0]!)?.customerRef).toBe('');
    // eSIM Go's orders carry nothing of ours: none is this order's for sure, nor another's.
    await expect(partner().findOrder('order-x', placedAround)).resolves.toBeUndefined();
    // The shop buys again: one eSIM delivered to the order, the orphan to nobody (reconcile refunds it).
    const again = await delivered(partner(), 'order-x');
    expect(again.iccid).not.toBe(orphan!.iccids[0]);
    expect(standIn.esimCount).toBe(2);
    expect(standIn.esim(orphan!.iccids[0]!)?.customerRef).toBe('');
  });

  it('a failure before eSIM Go answered anything is retried for the validate, never for the transaction', async () => {
    standIn.failNext(FAILURES.serverError, { call: 'POST /orders', where: (body) => !isTransaction(body) });
    standIn.failNext(FAILURES.serverError, { call: 'POST /orders', where: isTransaction });
    const error = await partnerFailure(partner().orderEsim({ transactionId: 'order-5xx', partnerCode: GERMANY, count: 1 }));
    expect(error).toMatchObject({ call: 'POST /orders', code: 'HTTP 500', retryable: true, refused: false, attempts: 1 });
    expect(standIn.requests.map((r) => [r.call, (r.body as { type?: string } | undefined)?.type, r.status])).toEqual([
      ['POST /orders', 'validate', 500],
      ['POST /orders', 'validate', 200],
      ['GET /catalogue/bundle/{name}', undefined, 200],
      ['POST /orders', 'transaction', 500],
    ]);
  });
});

describe('the eSIM on a phone: states and steps', () => {
  it('follows the eSIM from downloaded to installed, in use, used up and expired', async () => {
    const client = partner();
    const { esimTranNo, iccid } = await delivered(client);
    const read = async () => {
      const answer = await client.queryProfiles({ esimTranNo });
      return answer.status === 'ready' ? answer.profiles[0]! : undefined;
    };
    standIn.installEsim(iccid, 'Downloaded');
    expect(await read()).toMatchObject({ status: 'installed', installed: true, installStep: 'downloaded' });
    standIn.installEsim(iccid, 'Installed');
    expect(await read()).toMatchObject({ status: 'installed', installed: true, installStep: 'installed' });
    standIn.useData(iccid, 250_000_000);
    const inUse = await read();
    expect(inUse).toMatchObject({
      status: 'active',
      installStep: 'in_use',
      usedBytes: 250_000_000,
      totalBytes: 1_000_000_000,
      validityDays: 7,
    });
    // Validity from the first use: its end, 7 days on.
    expect(Math.abs(inUse!.expiresAt!.getTime() - (Date.now() + 7 * DAY_MS))).toBeLessThan(60_000);
    standIn.useData(iccid, 750_000_000);
    expect(await read()).toMatchObject({ status: 'used_up', usedBytes: 1_000_000_000 });
    standIn.expire(iccid);
    expect(await read()).toMatchObject({ status: 'expired', installStep: 'expired' });
  });

  it('says deleted when the traveller removed an installed eSIM from the phone before using it', async () => {
    const client = partner();
    const { esimTranNo, iccid } = await delivered(client);
    standIn.installEsim(iccid, 'Installed');
    standIn.installEsim(iccid, 'Released');
    const answer = await client.queryProfiles({ esimTranNo });
    expect(answer.status === 'ready' && answer.profiles[0]).toMatchObject({ status: 'installed', installed: true, installStep: 'deleted' });
  });
});

describe('cancelProfile', () => {
  it('revokes a never-installed eSIM with a refund to the balance; eSIM Go then takes it out of the account', async () => {
    const client = partner();
    const balance = await client.balance();
    const { esimTranNo, iccid } = await delivered(client);
    expect(await client.balance()).toBe(balance - priceOf(GERMANY));
    await client.cancelProfile(esimTranNo);
    expect(await client.balance()).toBe(balance);
    expect(standIn.requests.filter((r) => r.call === 'DELETE /esims/{iccid}/bundles/{name}').map((r) => r.query)).toEqual([
      { type: 'validate', refundToBalance: 'true' },
      { type: 'transaction', refundToBalance: 'true' },
    ]);
    expect(standIn.esim(iccid)?.inAccount).toBe(false);
    await expect(partnerFailure(client.queryProfiles({ esimTranNo }))).resolves.toMatchObject({ kind: 'not_found' });
    // Its answer lost and sent again: nothing left to cancel, nothing charged.
    await client.cancelProfile(esimTranNo);
    expect(await client.balance()).toBe(balance);
  });

  it('refuses, for good and before revoking anything, once the eSIM reached a phone or carried data', async () => {
    const client = partner();
    const downloaded = await delivered(client, 'order-1');
    standIn.installEsim(downloaded.iccid, 'Downloaded');
    const used = await delivered(client, 'order-2');
    standIn.useData(used.iccid, 1_000);
    for (const esim of [downloaded, used]) {
      const error = await partnerFailure(client.cancelProfile(esim.esimTranNo));
      expect(error).toMatchObject({ code: 'installed', kind: 'not_allowed', retryable: false, refused: true });
    }
    expect(calls()).not.toContain('DELETE /esims/{iccid}/bundles/{name}');
  });

  it('refuses when eSIM Go would revoke without a refund (refunds not enabled), and revokes nothing', async () => {
    standIn.setRefundsEnabled(false);
    const client = partner();
    const { esimTranNo, iccid } = await delivered(client);
    const error = await partnerFailure(client.cancelProfile(esimTranNo));
    expect(error).toMatchObject({ code: 'not_refundable', kind: 'not_allowed', retryable: false, refused: true });
    expect(standIn.requests.filter((r) => r.call === 'DELETE /esims/{iccid}/bundles/{name}').map((r) => r.query['type'])).toEqual([
      'validate',
    ]);
    expect(standIn.esim(iccid)?.inAccount).toBe(true);
  });
});

describe('suspend, unsuspend, revoke', () => {
  it("suspends and unsuspends with eSIM Go's v2.5 suspension, refusing what its state forbids", async () => {
    const client = partner();
    const { esimTranNo, iccid } = await delivered(client);
    await client.suspendProfile(esimTranNo);
    expect(standIn.esim(iccid)?.state).toBe('Suspended');
    expect((await client.queryProfiles({ esimTranNo })).status === 'ready').toBe(true);
    const answer = await client.queryProfiles({ esimTranNo });
    expect(answer.status === 'ready' && answer.profiles[0]!.status).toBe('suspended');
    expect(standIn.requests.find((r) => r.call === 'POST /esims/{iccid}/suspend')).toMatchObject({ status: 201, body: { suspend: true } });

    const twice = await partnerFailure(client.suspendProfile(esimTranNo));
    expect(twice).toMatchObject({ code: '400', kind: 'not_allowed', retryable: false, refused: true, attempts: 1 });
    await client.unsuspendProfile(esimTranNo);
    expect(standIn.esim(iccid)?.state).toBe('Active');
    await expect(partnerFailure(client.unsuspendProfile(esimTranNo))).resolves.toMatchObject({ kind: 'not_allowed', refused: true });

    standIn.policySuspend(iccid);
    await expect(partnerFailure(client.unsuspendProfile(esimTranNo))).resolves.toMatchObject({
      code: '403',
      kind: 'not_allowed',
      refused: true,
    });
  });

  it('refuses to revoke, sending nothing: eSIM Go cannot close an eSIM for good', async () => {
    const { esimTranNo } = await delivered();
    const before = standIn.requests.length;
    const error = await partnerFailure(partner().revokeProfile(esimTranNo));
    expect(error).toMatchObject({ code: 'unsupported', kind: 'not_allowed', retryable: false, refused: true });
    expect(error.message).toMatch(/cannot close eSIM .* for good/);
    expect(standIn.requests).toHaveLength(before);
  });
});

describe('top-ups', () => {
  it("lists the fixed-data bundles of the eSIM's country that eSIM Go says it can take", async () => {
    const client = partner();
    const { iccid } = await delivered(client);
    const topUps = await client.listTopUps(iccid);
    const germany = standIn.bundles
      .filter((b) => b.countries.length === 1 && b.countries[0]!.iso === 'DE' && !b.unlimited)
      .map((b) => b.name);
    expect(topUps.map((p) => p.partnerCode).sort()).toEqual(germany.sort());
    expect(topUps.find((p) => p.partnerCode === 'esim_3GB_15D_DE_V2')).toMatchObject({
      countries: ['DE'],
      dataAmount: { value: 3, unit: 'GB' },
      dataBytes: 3_000_000_000,
      validity: 15,
      validityUnit: 'day',
      wholesaleUsdE4: priceOf('esim_3GB_15D_DE_V2'),
    });
    expect(calls().filter((c) => c === 'GET /esims/{iccid}/compatible/{bundle}')).toHaveLength(germany.length);

    const american = await delivered(client, 'order-us', 'esim_1GB_7D_US_V2');
    expect((await client.listTopUps(american.iccid)).map((p) => p.partnerCode).every((code) => code.endsWith('_US_V2'))).toBe(true);
  });

  it("adds the bundle to the eSIM, paid from the balance, and answers the eSIM's new totals", async () => {
    const client = partner();
    const { esimTranNo, iccid } = await delivered(client);
    standIn.useData(iccid, 400_000_000);
    const balance = await client.balance();
    const result = await client.topUp({ esimTranNo, partnerCode: 'esim_3GB_15D_DE_V2', transactionId: 'topup-1' });
    expect(result).toMatchObject({ totalBytes: 4_000_000_000, usedBytes: 400_000_000, validityDays: 22 });
    // Its 15 days come after the 7 of the bundle in use.
    expect(Math.abs(result.expiresAt!.getTime() - (Date.now() + 22 * DAY_MS))).toBeLessThan(60_000);
    expect(balance - (await client.balance())).toBe(priceOf('esim_3GB_15D_DE_V2'));
    expect(standIn.requests.filter((r) => r.call === 'POST /orders').at(-1)?.body).toEqual({
      type: 'transaction',
      assign: true,
      order: [{ type: 'bundle', quantity: 1, item: 'esim_3GB_15D_DE_V2', iccids: [iccid], allowReassign: false }],
    });
  });

  it('refuses a bundle of another provider and an unknown one, buying nothing; sends the top-up once', async () => {
    const client = partner();
    const { esimTranNo } = await delivered(client);
    const orders = standIn.orderCount;
    const incompatible = await partnerFailure(client.topUp({ esimTranNo, partnerCode: 'esim_1GB_7D_US_V2', transactionId: 't-1' }));
    expect(incompatible).toMatchObject({ code: '400', kind: 'not_allowed', retryable: false, refused: true });
    const unknown = await partnerFailure(client.topUp({ esimTranNo, partnerCode: 'esim_9GB_9D_DE_V2', transactionId: 't-2' }));
    expect(unknown).toMatchObject({ kind: 'not_found', refused: true });
    standIn.failNext(FAILURES.serverError, { call: 'POST /orders', where: isTransaction });
    const failed = await partnerFailure(client.topUp({ esimTranNo, partnerCode: 'esim_3GB_15D_DE_V2', transactionId: 't-3' }));
    expect(failed).toMatchObject({ code: 'HTTP 500', retryable: true, refused: false, attempts: 1 });
    expect(standIn.orderCount).toBe(orders);
  });
});

describe('usage and balance', () => {
  it('reads what eSIM Go counted, and when: nothing measured before the first use', async () => {
    const client = partner();
    const { esimTranNo, iccid } = await delivered(client);
    expect(await client.usage([esimTranNo])).toEqual([{ esimTranNo, usedBytes: 0, totalBytes: 1_000_000_000, measuredAt: null }]);
    standIn.useData(iccid, 123_456_789);
    const [measured] = await client.usage([esimTranNo]);
    expect(measured).toMatchObject({ esimTranNo, usedBytes: 123_456_789, totalBytes: 1_000_000_000 });
    expect(Math.abs(measured!.measuredAt!.getTime() - Date.now())).toBeLessThan(60_000);
    const before = standIn.requests.length;
    await expect(client.usage([])).resolves.toEqual([]);
    expect(standIn.requests).toHaveLength(before);
  });

  it('answers the balance in USD × 10,000, and refuses an organisation that is not in US dollars', async () => {
    standIn.setBalance(1234.56);
    await expect(partner().balance()).resolves.toBe(12_345_600);
    await standIn.close();
    await start({ currency: 'EUR' });
    await expect(partnerFailure(partner().balance())).resolves.toMatchObject({
      call: 'GET /organisation',
      code: 'currency',
      refused: true,
    });
  });
});

describe('findOrphans', () => {
  it('finds the eSIM a transaction bought whose answer was lost, which no order claims; cancelProfile refunds it', async () => {
    const client = partner({ retries: 0 });
    standIn.failNext(FAILURES.lostAnswer, { call: 'POST /orders', where: isTransaction });
    await expect(client.orderEsim({ transactionId: 'order-7', partnerCode: GERMANY, count: 1 })).rejects.toThrow();
    // The next try buys again, and its delivery labels that one: the order's.
    const { iccid } = await delivered(client, 'order-7');
    const [lost, kept] = standIn.ordersPlaced();
    const partnerOrderNo = kept!.orderReference;
    expect(kept!.iccids).toEqual([iccid]);
    expect(kept!.orderReference).toBe(partnerOrderNo);
    const window = { from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) };
    const orphan = { partnerOrderNo: lost!.orderReference, esimTranNo: `${lost!.iccids[0]}:` };
    expect(await client.findOrphans!(window, async (order) => order.partnerOrderNo === partnerOrderNo)).toEqual([orphan]);
    // Unclaimed by the shop, a labelled eSIM is still no orphan (an order whose answer is being read back).
    expect(await client.findOrphans!(window, async () => false)).toEqual([orphan]);
    // Outside the window: nothing.
    expect(await client.findOrphans!({ from: new Date(0), to: new Date(Date.now() - 60_000) }, async () => false)).toEqual([]);

    const balance = standIn.balance;
    await client.cancelProfile(orphan.esimTranNo);
    expect(standIn.balance).toBeCloseTo(balance + priceOf(GERMANY) / 10_000, 2);
    expect(standIn.esim(kept!.iccids[0]!)?.customerRef).toBe('order-7');
    // Released: it left the account, and is found no more.
    expect(await client.findOrphans!(window, async () => false)).toEqual([]);
  });
});

import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAILURES, startEsimAccessStandIn, type EsimAccessStandIn, type StandInOptions } from '../../../../stand-ins/esim-access/server.ts';
import { partnerFailure } from '../../../../tests/support/partner-failure.ts';
import type { EsimPartner, EsimProfile, ProfileQuery } from '../partner.types.ts';
import { createEsimAccessPartner } from './adapter.ts';
import type { EsimAccessConfig } from './config.ts';
import { parsePartnerNotification } from './notifications.ts';
import { mapEsimAccessProfile } from './schemas.ts';

// Delivery calls of the adapter against the eSIM Access stand-in over real HTTP, and the
// stand-in's webhook notifications through the parser.
const ACCESS_CODE = 'delivery-access-code';
const SECRET = 'delivery-secret-key';
const SMDP = 'smdp.esim-access.stand-in.invalid';

// The shop's webhook endpoint stand-in: records what the partner posts.
let receiver: Server;
let webhookUrl: string;
let received: unknown[];
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  webhookUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/webhooks/partner`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

let standIn: EsimAccessStandIn;
const start = async (options: Partial<StandInOptions> = {}) => {
  standIn = await startEsimAccessStandIn({ accessCode: ACCESS_CODE, secretKey: SECRET, allocationDelayMs: 300, webhookUrl, ...options });
};
beforeEach(async () => {
  received = [];
  await start();
});
afterEach(() => standIn.close());

const partner = (config: Partial<EsimAccessConfig> = {}): EsimPartner =>
  createEsimAccessPartner({ baseUrl: standIn.url, accessCode: ACCESS_CODE, secretKey: SECRET, backoffMs: 10, ...config });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Queries as the shop's fallback would until the partner has allocated the profiles. */
async function profilesOf(client: EsimPartner, which: ProfileQuery): Promise<EsimProfile[]> {
  for (let i = 0; i < 100; i++) {
    const answer = await client.queryProfiles(which);
    if (answer.status === 'ready') return answer.profiles;
    await sleep(100);
  }
  throw new Error('never allocated');
}

async function orderedEsim(client = partner(), transactionId = 'order-1'): Promise<EsimProfile> {
  const { partnerOrderNo } = await client.orderEsim({ transactionId, partnerCode: germany().packageCode, count: 1 });
  const [profile] = await profilesOf(client, { partnerOrderNo });
  return profile!;
}

const germany = () => standIn.packages.find((p) => p.slug === 'DE_1_7')!;
const germanyLarger = () => standIn.packages.find((p) => p.slug === 'DE_3_15')!;

async function notification(type: string, predicate: (body: { content: Record<string, unknown> }) => boolean = () => true) {
  for (let i = 0; i < 100; i++) {
    const found = (received as { notifyType: string; content: Record<string, unknown> }[]).find(
      (n) => n.notifyType === type && predicate(n),
    );
    if (found) return found;
    await sleep(50);
  }
  throw new Error(`no ${type} notification`);
}

describe('orderEsim and queryProfiles', () => {
  it('answers allocating until the partner has allocated, then the profile with its LPA string', async () => {
    await standIn.close();
    await start({ allocationDelayMs: 3_000 });
    const client = partner();
    const pkg = germany();

    const { partnerOrderNo } = await client.orderEsim({
      transactionId: 'order-42',
      partnerCode: pkg.packageCode,
      priceUsdE4: pkg.price,
      count: 1,
    });
    expect(standIn.requests[0]?.body).toEqual({
      transactionId: 'order-42',
      packageInfoList: [{ packageCode: pkg.packageCode, count: 1, price: pkg.price }],
      amount: pkg.price,
    });
    await expect(client.queryProfiles({ partnerOrderNo })).resolves.toEqual({ status: 'allocating' });
    expect(standIn.requests.at(-1)).toMatchObject({ call: 'esim/query', errorCode: '200010' });

    const [profile, ...more] = await profilesOf(client, { partnerOrderNo });
    expect(more).toEqual([]);
    const [, smdpAddress, matchingId] = /^LPA:1\$([^$]+)\$([^$]+)$/.exec(profile!.activationCode) ?? [];
    expect(profile).toMatchObject({
      smdpAddress: SMDP,
      matchingId,
      status: 'ready',
      installed: false,
      totalBytes: pkg.volume,
      usedBytes: 0,
      validityDays: 7,
    });
    expect(smdpAddress).toBe(SMDP);
    expect(matchingId).toMatch(/^[0-9A-F]{32}$/);
    expect(profile!.iccid).toMatch(/^\d{19}$/);
    expect(profile!.expiresAt!.getTime()).toBeGreaterThan(Date.now());

    // The same eSIM by its own key.
    await expect(client.queryProfiles({ esimTranNo: profile!.esimTranNo })).resolves.toEqual({ status: 'ready', profiles: [profile] });
  });

  it('makes one order and one eSIM of the same transactionId, however often it is sent', async () => {
    const client = partner();
    const order = { transactionId: 'order-7', partnerCode: germany().packageCode, count: 1 } as const;
    const first = await client.orderEsim(order);
    // A retry after a time-out (the first attempt never reached the partner's order book).
    standIn.failNext(FAILURES.timeout, { call: 'esim/order' });
    const again = await partner({ timeoutMs: 300 }).orderEsim(order);
    const third = await client.orderEsim(order);
    expect(again).toEqual(first);
    expect(third).toEqual(first);
    expect(standIn.esimCount).toBe(1);
    expect(await profilesOf(client, first)).toHaveLength(1);
  });

  it("refuses an order at a price that is no longer the partner's, and one of an unknown package", async () => {
    const pkg = germany();
    const priceChanged = await partnerFailure(
      partner().orderEsim({ transactionId: 'o-1', partnerCode: pkg.packageCode, priceUsdE4: pkg.price - 1, count: 1 }),
    );
    expect(priceChanged).toMatchObject({ call: 'esim/order', code: '200005', retryable: false });
    const unknown = await partnerFailure(partner().orderEsim({ transactionId: 'o-2', partnerCode: 'NOPE', count: 1 }));
    expect(unknown).toMatchObject({ code: '310241', kind: 'not_found', retryable: false });
    expect(standIn.esimCount).toBe(0);
  });

  it('says an eSIM that does not exist is not found', async () => {
    const error = await partnerFailure(partner().queryProfiles({ esimTranNo: '99999999999999' }));
    expect(error).toMatchObject({ call: 'esim/query', kind: 'not_found', retryable: false });
  });
});

describe('cancelProfile', () => {
  it('cancels an eSIM that was never installed', async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    await client.cancelProfile(profile.esimTranNo);
    const [cancelled] = await profilesOf(client, { esimTranNo: profile.esimTranNo });
    expect(cancelled).toMatchObject({ status: 'cancelled', installed: false });
  });

  it('refuses, for good, to cancel an installed eSIM', async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    standIn.markInstalled(profile.esimTranNo);
    const [installed] = await profilesOf(client, { esimTranNo: profile.esimTranNo });
    expect(installed).toMatchObject({ status: 'active', installed: true });

    const error = await partnerFailure(client.cancelProfile(profile.esimTranNo));
    expect(error).toMatchObject({ call: 'esim/cancel', code: '200002', kind: 'not_allowed', retryable: false, attempts: 1 });
    expect((await profilesOf(client, { esimTranNo: profile.esimTranNo }))[0]!.status).toBe('active');
  });
});

describe('listTopUps', () => {
  it("lists the partner's own top-up packages of an eSIM whose package can be topped up, in our terms", async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    const topUps = await client.listTopUps(profile.iccid);
    const own = standIn.topUpsOf(germany().packageCode);
    expect(own.length).toBeGreaterThan(1);
    expect(topUps.map((p) => p.partnerCode)).toEqual(own.map((p) => p.packageCode));
    expect(topUps.every((p) => p.partnerCode.startsWith('TOPUP_') && !standIn.packages.some((b) => b.packageCode === p.partnerCode))).toBe(
      true,
    );
    const twoGb = topUps.find((p) => p.dataBytes === 2 * 2 ** 30)!;
    const raw = own.find((p) => p.packageCode === twoGb.partnerCode)!;
    expect(twoGb).toMatchObject({
      dataAmount: { value: 2, unit: 'GB' },
      validity: raw.duration,
      validityUnit: 'day',
      wholesaleUsdE4: raw.price,
      countries: ['DE'],
    });
    expect(standIn.requests.at(-1)).toMatchObject({ call: 'package/list', body: { type: 'TOPUP', iccid: profile.iccid } });
  });

  it('lists none for an eSIM whose package cannot be topped up, as package/list says (supportTopUpType 1)', async () => {
    const client = partner();
    const fixed = standIn.packages.find((p) => p.supportTopUpType === 1 && p.locationNetworkList.length === 1)!;
    expect((await client.listPackages({ packageCode: fixed.packageCode }))[0]).toMatchObject({
      partnerCode: fixed.packageCode,
      topUp: false,
    });
    expect((await client.listPackages({ packageCode: germany().packageCode }))[0]).toMatchObject({ topUp: true });
    const { partnerOrderNo } = await client.orderEsim({ transactionId: 'fixed-1', partnerCode: fixed.packageCode, count: 1 });
    const [profile] = await profilesOf(client, { partnerOrderNo });
    expect(await client.listTopUps(profile!.iccid)).toEqual([]);
  });
});

describe('topUp', () => {
  it("adds the top-up package's own data and days to the eSIM, at its own price", async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    standIn.markInstalled(profile.esimTranNo);
    const extra = (await client.listTopUps(profile.iccid)).find((p) => p.dataBytes === 2 * 2 ** 30)!;
    const balance = await client.balance();

    const result = await client.topUp({ esimTranNo: profile.esimTranNo, partnerCode: extra.partnerCode, transactionId: 'topup-1' });
    expect(result).toMatchObject({ totalBytes: germany().volume + extra.dataBytes, usedBytes: 0, validityDays: 7 + extra.validity });
    expect(result.expiresAt!.getTime()).toBeGreaterThan(Date.now() + (6 + extra.validity) * 86_400_000);
    const [after] = await profilesOf(client, { esimTranNo: profile.esimTranNo });
    expect(after).toMatchObject({ totalBytes: result.totalBytes, validityDays: 7 + extra.validity });
    expect(balance - (await client.balance())).toBe(extra.wholesaleUsdE4);
  });

  it("refuses a code that is not one of the eSIM's top-ups: a plan's, its TOPUP_ name, or another place's top-up", async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    standIn.markInstalled(profile.esimTranNo);
    const elsewhere = standIn.topUpsOf(standIn.packages.find((p) => p.slug === 'FR_1_7')!.packageCode)[0]!;
    for (const code of [germanyLarger().packageCode, `TOPUP_${germanyLarger().packageCode}`, elsewhere.packageCode]) {
      const error = await partnerFailure(client.topUp({ esimTranNo: profile.esimTranNo, partnerCode: code, transactionId: `t-${code}` }));
      expect(error, code).toMatchObject({ call: 'esim/topup', code: '310241', kind: 'not_found', retryable: false, refused: true });
    }
    expect((await profilesOf(client, { esimTranNo: profile.esimTranNo }))[0]!.totalBytes).toBe(germany().volume);
  });

  it('is sent once: a failed top-up is not repeated blindly', async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    standIn.failNext({ status: 503 }, { call: 'esim/topup' });
    const error = await partnerFailure(
      client.topUp({
        esimTranNo: profile.esimTranNo,
        partnerCode: standIn.topUpsOf(germany().packageCode)[0]!.packageCode,
        transactionId: 't-1',
      }),
    );
    expect(error).toMatchObject({ call: 'esim/topup', retryable: true, attempts: 1 });
    expect(standIn.requests.filter((r) => r.call === 'esim/topup')).toHaveLength(1);
  });
});

describe('usage', () => {
  it('reads what the partner measured, and when', async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    const [unmeasured] = await client.usage([profile.esimTranNo]);
    expect(unmeasured).toEqual({ esimTranNo: profile.esimTranNo, usedBytes: 0, totalBytes: germany().volume, measuredAt: null });

    standIn.markInstalled(profile.esimTranNo);
    standIn.setUsage(profile.esimTranNo, 123_456_789);
    const [measured] = await client.usage([profile.esimTranNo]);
    expect(measured).toMatchObject({ usedBytes: 123_456_789, totalBytes: germany().volume });
    expect(Math.abs(measured!.measuredAt!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(standIn.requests.at(-1)?.body).toEqual({ esimTranNoList: [profile.esimTranNo] });
  });

  it('asks nothing for no eSIMs', async () => {
    await expect(partner().usage([])).resolves.toEqual([]);
    expect(standIn.requests).toEqual([]);
  });

  it("asks for at most 10 eSIMs a call, the partner's limit: 23 eSIMs take 3 calls and all 23 come back", async () => {
    const client = partner();
    // 23 orders of one eSIM each (the limiter keeps them to 8 a second).
    const orders = await Promise.all(
      Array.from({ length: 23 }, (_, i) => client.orderEsim({ transactionId: `order-${i}`, partnerCode: germany().packageCode, count: 1 })),
    );
    const esimTranNos = (await Promise.all(orders.map(({ partnerOrderNo }) => profilesOf(client, { partnerOrderNo })))).map(
      ([p]) => p!.esimTranNo,
    );
    expect(new Set(esimTranNos).size).toBe(23);
    const usages = await client.usage(esimTranNos);
    expect(usages.map((u) => u.esimTranNo).sort()).toEqual([...esimTranNos].sort());
    const calls = standIn.requests.filter((r) => r.call === 'esim/usage/query');
    expect(calls.map((r) => [r.status, r.errorCode, (r.body as { esimTranNoList: string[] }).esimTranNoList.length])).toEqual([
      [200, null, 10],
      [200, null, 10],
      [200, null, 3],
    ]);
    expect(calls.flatMap((r) => (r.body as { esimTranNoList: string[] }).esimTranNoList)).toEqual(esimTranNos);
  }, 30_000);
});

describe('failures', () => {
  it('out of stock: not retried, kind out_of_stock', async () => {
    standIn.failNext(FAILURES.outOfStock, { call: 'esim/order' });
    const error = await partnerFailure(partner().orderEsim({ transactionId: 'o-1', partnerCode: germany().packageCode, count: 1 }));
    expect(error).toMatchObject({ code: '200011', kind: 'out_of_stock', retryable: false, attempts: 1 });
    expect(standIn.esimCount).toBe(0);
  });

  it('time-out: retried, then a retryable error naming no answer', async () => {
    standIn.failNext(FAILURES.timeout, { count: 2 });
    const error = await partnerFailure(partner({ timeoutMs: 300, retries: 1 }).queryProfiles({ partnerOrderNo: 'B1' }));
    expect(error).toMatchObject({ call: 'esim/query', code: undefined, retryable: true, attempts: 2 });
    expect(error.message).toMatch(/no answer/);
  });

  it('5xx: retried, then a retryable error', async () => {
    standIn.failNext(FAILURES.serverError, { count: 3 });
    const error = await partnerFailure(partner({ retries: 2 }).usage(['1']));
    expect(error).toMatchObject({ call: 'esim/usage/query', code: '000001', retryable: true, attempts: 3 });
  });

  it('a wrong secret is refused on the new calls too, and orders nothing', async () => {
    const error = await partnerFailure(
      partner({ secretKey: 'wrong' }).orderEsim({ transactionId: 'o-1', partnerCode: germany().packageCode, count: 1 }),
    );
    expect(error).toMatchObject({ code: '101003', retryable: false, attempts: 1 });
    expect(standIn.esimCount).toBe(0);
  });

  it('never puts the activation code into an error', () => {
    const ac = 'LPA:1$not a host$SECRET-MATCHING-ID';
    const raw = { esimTranNo: '1', iccid: '8985000000000000001', ac, esimStatus: 'GOT_RESOURCE', smdpStatus: 'RELEASED' };
    expect(() => mapEsimAccessProfile(raw)).toThrow(/eSIM 1: the activation code is not an LPA string/);
    expect(() => mapEsimAccessProfile(raw)).not.toThrow(/SECRET-MATCHING-ID/);
  });
});

describe('rate limit', () => {
  it('keeps a burst of 20 queries to 8 requests a second at the partner, none refused', async () => {
    const client = partner();
    const profile = await orderedEsim(client);
    const before = standIn.requests.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.queryProfiles({ esimTranNo: profile.esimTranNo })));
    expect(answers.every((a) => a.status === 'ready')).toBe(true);

    const burst = standIn.requests.slice(before);
    expect(burst.map((r) => r.status)).toEqual(Array(20).fill(200));
    const arrivals = standIn.requests.map((r) => r.receivedAt);
    for (let i = 8; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 8]!).toBeGreaterThanOrEqual(1000);
  });
});

describe('parsePartnerNotification', () => {
  it("reads the stand-in's notifications: allocated, installed, data used, cancelled", async () => {
    const client = partner();
    const profile = await orderedEsim(client, 'order-9');
    const ready = parsePartnerNotification(await notification('ORDER_STATUS'));
    expect(ready).toEqual({
      kind: 'order_ready',
      notifyId: expect.any(String),
      partnerOrderNo: expect.stringMatching(/^B/),
      transactionId: 'order-9',
    });

    standIn.markInstalled(profile.esimTranNo);
    expect(parsePartnerNotification(await notification('ESIM_STATUS'))).toMatchObject({
      kind: 'esim_status',
      esimTranNo: profile.esimTranNo,
      iccid: profile.iccid,
      transactionId: 'order-9',
      status: 'active',
      installed: true,
    });

    standIn.setUsage(profile.esimTranNo, 1_000_000);
    const usage = parsePartnerNotification(await notification('DATA_USAGE'));
    expect(usage).toMatchObject({ kind: 'data_usage', esimTranNo: profile.esimTranNo, usedBytes: 1_000_000, totalBytes: germany().volume });
    expect(usage).toHaveProperty('measuredAt', expect.any(Date));

    const other = await orderedEsim(client, 'order-10');
    await client.cancelProfile(other.esimTranNo);
    const cancelled = await notification('ESIM_STATUS', (n) => n.content['esimStatus'] === 'CANCEL');
    expect(parsePartnerNotification(cancelled)).toMatchObject({
      kind: 'esim_status',
      esimTranNo: other.esimTranNo,
      status: 'cancelled',
      installed: false,
    });

    const ids = received.map((n) => parsePartnerNotification(n)?.notifyId);
    expect(new Set(ids).size).toBe(received.length);
    // Every one was posted to the webhook, which answered.
    for (let i = 0; i < 100 && standIn.notifications.some((n) => n.status === null); i++) await sleep(20);
    expect(standIn.notifications.map((n) => n.status)).toEqual(received.map(() => 204));
  });

  it('reads the kinds the stand-in does not send, in the shapes the partner documents', () => {
    expect(parsePartnerNotification({ notifyType: 'CHECK_HEALTH', content: { orderNo: '1', orderStatus: 'Test' } })).toEqual({
      kind: 'health_check',
      notifyId: undefined,
    });
    const validity = parsePartnerNotification(
      JSON.stringify({
        notifyType: 'VALIDITY_USAGE',
        content: {
          orderNo: 'B1',
          transactionId: 't',
          iccid: '89',
          durationUnit: 'DAY',
          totalDuration: 30,
          expiredTime: '2030-01-11T08:10:19Z',
          remain: 1,
        },
      }),
    );
    expect(validity).toMatchObject({ kind: 'validity', partnerOrderNo: 'B1', daysLeft: 1, expiresAt: new Date('2030-01-11T08:10:19Z') });
    const smdp = parsePartnerNotification({
      notifyType: 'SMDP_EVENT',
      notifyId: 'n1',
      content: { iccid: '89', esimStatus: 'GOT_RESOURCE', smdpStatus: 'DOWNLOAD', esimTranNo: '25', orderNo: 'B25' },
    });
    expect(smdp).toMatchObject({ kind: 'smdp_event', notifyId: 'n1', status: 'installed', installed: true });
  });

  it('answers undefined for junk, never throwing', () => {
    const junk: unknown[] = [
      undefined,
      null,
      42,
      'not json',
      '{}',
      [],
      {},
      { notifyType: 5 },
      { notifyType: 'ORDER_STATUS' },
      { notifyType: 'ORDER_STATUS', content: { orderStatus: 'GOT_RESOURCE' } },
      { notifyType: 'ORDER_STATUS', content: { orderNo: 'B1', orderStatus: 'PAID' } },
      { notifyType: 'DATA_USAGE', content: 'x' },
      { notifyType: 'SOMETHING_NEW', content: {} },
      { notifyType: 'ESIM_STATUS', content: null },
    ];
    for (const body of junk) expect(parsePartnerNotification(body), JSON.stringify(body)).toBeUndefined();
  });
});

describe('mapEsimAccessProfile', () => {
  const raw = {
    esimTranNo: '25030303480009',
    iccid: '8985224528000094221',
    ac: 'LPA:1$rsp.example.com$451F9802E6',
    esimStatus: 'GOT_RESOURCE',
    smdpStatus: 'RELEASED',
    totalVolume: 5_368_709_120,
    orderUsage: 0,
    totalDuration: 30,
    durationUnit: 'DAY',
    expiredTime: '2025-03-19T18:00:00+0000',
  };

  it("maps the partner's states to ours, installed once the SM-DP+ released it to a device", () => {
    const state = (esimStatus: string, smdpStatus: string) => {
      const { status, installed } = mapEsimAccessProfile({ ...raw, esimStatus, smdpStatus });
      return `${status}/${installed}`;
    };
    expect([
      state('GOT_RESOURCE', 'RELEASED'),
      state('GOT_RESOURCE', 'ENABLED'),
      state('IN_USE', 'ENABLED'),
      state('USED_UP', 'DISABLED'),
      state('UNUSED_EXPIRED', 'RELEASED'),
      state('USED_EXPIRED', 'DELETED'),
      state('CANCEL', 'RELEASED'),
      state('SUSPENDED', 'ENABLED'),
    ]).toEqual([
      'ready/false',
      'installed/true',
      'active/true',
      'used_up/true',
      'expired/false',
      'expired/true',
      'cancelled/false',
      'suspended/true',
    ]);
  });

  it('names the install step from the SM-DP+ status, in use from esimStatus, and deleted or expired over the rest (issue 22)', () => {
    const step = (esimStatus: string, smdpStatus: string) => mapEsimAccessProfile({ ...raw, esimStatus, smdpStatus }).installStep;
    expect([
      step('GOT_RESOURCE', 'RELEASED'),
      step('GOT_RESOURCE', 'DOWNLOAD'),
      step('GOT_RESOURCE', 'INSTALLATION'),
      step('GOT_RESOURCE', 'ENABLED'),
      step('GOT_RESOURCE', 'DISABLED'),
      step('IN_USE', 'ENABLED'),
      step('USED_UP', 'DISABLED'),
      step('IN_USE', 'DELETED'),
      step('GOT_RESOURCE', 'DELETED'),
      step('USED_EXPIRED', 'DELETED'),
      step('UNUSED_EXPIRED', 'RELEASED'),
      step('CANCEL', 'RELEASED'),
    ]).toEqual([
      'released',
      'downloaded',
      'installed',
      'enabled',
      'installed',
      'in_use',
      'in_use',
      'deleted',
      'deleted',
      'expired',
      'expired',
      null,
    ]);
  });

  it("reads the partner's times and counts validity in days", () => {
    const profile = mapEsimAccessProfile(raw);
    expect(profile).toMatchObject({
      smdpAddress: 'rsp.example.com',
      matchingId: '451F9802E6',
      validityDays: 30,
      totalBytes: 5_368_709_120,
    });
    expect(profile.expiresAt).toEqual(new Date('2025-03-19T18:00:00Z'));
    expect(mapEsimAccessProfile({ ...raw, totalDuration: 1, durationUnit: 'MONTH' }).validityDays).toBe(30);
    expect(mapEsimAccessProfile({ ...raw, expiredTime: null }).expiresAt).toBeNull();
  });
});

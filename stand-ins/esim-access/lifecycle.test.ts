import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callEsimAccess } from '../../tests/support/esim-access-requests.ts';
import { startEsimAccessStandIn, type EsimAccessStandIn } from './server.ts';

// An eSIM's life after allocation as the partner reports it (docs.esimaccess.com, Webhooks and
// Query All Allocated Profiles): the SM-DP+ steps of an installation, first use, the validity
// warning, and the webhook's health check; with hand-made signed requests, to see the partner's fields.
const accessCode = 'code';
const secretKey = 'secret';
const DAY_MS = 86_400_000;

interface Received {
  body: { notifyType: string; notifyId?: string; eventGenerateTime?: string; content: Record<string, unknown> };
  at: number;
}
// The shop's webhook stand-in: records what arrives and when; answers `status` after `delayMs`.
let receiver: Server;
let receiverUrl: string;
let received: Received[];
let answer: { status: number; delayMs: (body: Received['body']) => number };
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'];
      received.push({ body, at: Date.now() });
      setTimeout(() => res.writeHead(answer.status).end(), answer.delayMs(body));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/webhook`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

let standIn: EsimAccessStandIn;
beforeEach(async () => {
  received = [];
  answer = { status: 200, delayMs: () => 0 };
  standIn = await startEsimAccessStandIn({ accessCode, secretKey, allocationDelayMs: 50, webhookUrl: receiverUrl });
});
// A notification still on its way (an allocation's ORDER_STATUS a test did not wait for) reaches the
// receiver before the next test starts counting, never during it.
afterEach(async () => {
  await settled();
  await standIn.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An esim/query profile: the fields these tests read by name, the others only matched. */
interface Profile extends Record<string, unknown> {
  esimTranNo: string;
  iccid: string;
  orderNo: string;
  expiredTime: string;
  totalDuration: number;
}
/** A partner answer, with what these tests read of esim/order's (orderNo) and esim/query's (esimList). */
interface Answer {
  success: boolean;
  errorCode: string | null;
  obj: { orderNo: string; esimList: Profile[] };
}

/** One call; refused as busy (the stand-in keeps the partner's 8 requests a second), it waits and asks again, as the adapter does. */
async function post(call: string, payload: object): Promise<Answer> {
  for (;;) {
    const answer = await callEsimAccess<Answer>(standIn.url, { accessCode, secretKey }, call, JSON.stringify(payload), 'f0e1d2c3');
    if (answer.errorCode !== '900001') return answer;
    await sleep(200);
  }
}

/** An allocated eSIM of the first package (or of this one), as esim/query lists it. */
async function allocatedEsim(transactionId = 'order-1', packageCode = standIn.packages[0]!.packageCode): Promise<Profile> {
  const ordered = await post('esim/order', {
    transactionId,
    packageInfoList: [{ packageCode, count: 1 }],
  });
  for (let i = 0; i < 100; i++) {
    const answer = await post('esim/query', { orderNo: ordered.obj.orderNo, pager: { pageNum: 1, pageSize: 10 } });
    if (answer.success) return answer.obj.esimList[0]!;
    await sleep(20);
  }
  throw new Error('never allocated');
}
const profileOf = async (esimTranNo: string): Promise<Profile> =>
  (await post('esim/query', { esimTranNo, pager: { pageNum: 1, pageSize: 10 } })).obj.esimList[0]!;

/** Waits until every notification sent so far was answered by the webhook. */
async function settled(): Promise<void> {
  for (let i = 0; i < 200 && standIn.notifications.some((n) => n.status === null); i++) await sleep(10);
}
const sent = () => standIn.notifications.map((n) => n.body);
const steps = (from = 0) =>
  sent()
    .slice(from)
    .map((b) => `${b.notifyType} ${b.content['esimStatus']}/${b.content['smdpStatus']}`);

describe('installation (docs, Webhooks: SMDP_EVENT, ESIM_STATUS)', () => {
  it('goes DOWNLOAD, INSTALLATION, ENABLED under GOT_RESOURCE, an SMDP_EVENT each, then IN_USE on first use, also an ESIM_STATUS', async () => {
    const esim = await allocatedEsim();
    expect(esim).toMatchObject({ esimStatus: 'GOT_RESOURCE', smdpStatus: 'RELEASED', eid: '', activateTime: null });
    const before = sent().length;

    standIn.installTo(esim['esimTranNo'], 'DOWNLOAD');
    const downloaded = await profileOf(esim['esimTranNo']);
    expect(downloaded).toMatchObject({ esimStatus: 'GOT_RESOURCE', smdpStatus: 'DOWNLOAD', eid: expect.stringMatching(/^\d{32}$/) });
    expect(sent().at(-1)).toMatchObject({
      notifyType: 'SMDP_EVENT',
      notifyId: expect.stringMatching(/^[0-9a-f]{32}$/),
      content: {
        esimTranNo: esim['esimTranNo'],
        iccid: esim['iccid'],
        orderNo: esim['orderNo'],
        transactionId: 'order-1',
        eid: downloaded['eid'],
        notifyStatus: 'Executed-Success',
      },
    });
    // Downloaded to a phone: no longer cancellable (Cancel Profile: only GOT_RESOURCE + RELEASED).
    expect((await post('esim/cancel', { esimTranNo: esim['esimTranNo'] })).errorCode).toBe('200002');

    standIn.installTo(esim['esimTranNo'], 'ENABLED');
    // Validity from first connection (the stand-in's packages: activeType 2): not started yet.
    expect(await profileOf(esim['esimTranNo'])).toMatchObject({
      esimStatus: 'GOT_RESOURCE',
      smdpStatus: 'ENABLED',
      activateTime: null,
      expiredTime: esim['expiredTime'],
    });

    standIn.installTo(esim['esimTranNo'], 'IN_USE');
    const inUse = await profileOf(esim['esimTranNo']);
    expect(inUse).toMatchObject({ esimStatus: 'IN_USE', smdpStatus: 'ENABLED', activateTime: expect.any(String) });
    expect(Date.parse(inUse['expiredTime'].replace('+0000', 'Z')) - Date.now()).toBeGreaterThan((inUse['totalDuration'] - 1) * DAY_MS);

    expect(steps(before)).toEqual([
      'SMDP_EVENT GOT_RESOURCE/DOWNLOAD',
      'SMDP_EVENT GOT_RESOURCE/INSTALLATION',
      'SMDP_EVENT GOT_RESOURCE/ENABLED',
      'SMDP_EVENT IN_USE/ENABLED',
      'ESIM_STATUS IN_USE/ENABLED',
    ]);
    const seqNumbers = sent()
      .slice(before)
      .flatMap((b) => (b.notifyType === 'SMDP_EVENT' ? [b.content['seqNumber'] as number] : []));
    expect(seqNumbers).toEqual([...seqNumbers].sort((a, b) => a - b));
    // Each arrived, in the order sent.
    await settled();
    expect(received.slice(-5).map((r) => `${r.body.notifyType} ${r.body.content['esimStatus']}/${r.body.content['smdpStatus']}`)).toEqual(
      steps(before),
    );
  });

  it('markInstalled walks every step at once and ends in use; again, it changes nothing', async () => {
    const esim = await allocatedEsim();
    const before = sent().length;
    standIn.markInstalled(esim['esimTranNo']);
    expect(await profileOf(esim['esimTranNo'])).toMatchObject({ esimStatus: 'IN_USE', smdpStatus: 'ENABLED' });
    expect(steps(before)).toHaveLength(5);
    standIn.markInstalled(esim['esimTranNo']);
    standIn.installTo(esim['esimTranNo'], 'DOWNLOAD');
    expect(steps(before)).toHaveLength(5);
  });

  it("takes one step a call: each hook call moves the eSIM one step on, with that step's notification (issue 22)", async () => {
    const esim = await allocatedEsim();
    const before = sent().length;
    for (const stage of ['DOWNLOAD', 'INSTALLATION', 'ENABLED', 'IN_USE'] as const) {
      const count = sent().length;
      standIn.installTo(esim['esimTranNo'], stage);
      expect((await profileOf(esim['esimTranNo']))['smdpStatus']).toBe(stage === 'IN_USE' ? 'ENABLED' : stage);
      expect(steps(count).at(-1)).toBe(stage === 'IN_USE' ? 'ESIM_STATUS IN_USE/ENABLED' : `SMDP_EVENT GOT_RESOURCE/${stage}`);
    }
    expect(steps(before)).toHaveLength(5);
  });

  it('DELETED: the phone deletes a downloaded eSIM, an SMDP_EVENT with smdpStatus DELETED; nothing installs it again', async () => {
    const fresh = await allocatedEsim('order-fresh');
    // Never downloaded: there is no phone to delete it from.
    expect(() => standIn.installTo(fresh['esimTranNo'], 'DELETED')).toThrow(/no phone/);

    const esim = await allocatedEsim('order-enabled');
    standIn.installTo(esim['esimTranNo'], 'ENABLED');
    const before = sent().length;
    standIn.installTo(esim['esimTranNo'], 'DELETED');
    expect(await profileOf(esim['esimTranNo'])).toMatchObject({ esimStatus: 'GOT_RESOURCE', smdpStatus: 'DELETED' });
    expect(steps(before)).toEqual(['SMDP_EVENT GOT_RESOURCE/DELETED']);
    expect(sent().at(-1)).toMatchObject({
      content: { esimTranNo: esim['esimTranNo'], iccid: esim['iccid'], notifyStatus: 'Executed-Success' },
    });
    // Deleting again changes nothing; installing again is refused.
    standIn.installTo(esim['esimTranNo'], 'DELETED');
    expect(steps(before)).toHaveLength(1);
    expect(() => standIn.installTo(esim['esimTranNo'], 'IN_USE')).toThrow(/deleted/);
    // Over HTTP too, for the browser tests (after a second: the stand-in keeps the partner's 8 requests a second).
    await sleep(1000);
    const control = (body: object) => fetch(`${standIn.url}/_stand-in/install`, { method: 'POST', body: JSON.stringify(body) });
    expect((await control({ transactionId: 'order-fresh', stage: 'DOWNLOAD' })).status).toBe(200);
    expect((await control({ transactionId: 'order-fresh', stage: 'DELETED' })).status).toBe(200);
    expect(await profileOf(fresh['esimTranNo'])).toMatchObject({ smdpStatus: 'DELETED' });
  });

  it('puts an enabled eSIM in use when it first uses data', async () => {
    const esim = await allocatedEsim();
    standIn.installTo(esim['esimTranNo'], 'ENABLED');
    const before = sent().length;
    standIn.setUsage(esim['esimTranNo'], 1_000_000);
    expect(steps(before)).toEqual(['SMDP_EVENT IN_USE/ENABLED', 'ESIM_STATUS IN_USE/ENABLED', 'DATA_USAGE undefined/undefined']);
  });

  it("sends one eSIM's notifications one after another, each once the webhook answered the one before", async () => {
    const esim = await allocatedEsim();
    await settled();
    answer = { status: 200, delayMs: (body) => (body.content['smdpStatus'] === 'DOWNLOAD' ? 300 : 0) };
    const from = received.length;
    standIn.markInstalled(esim['esimTranNo']);
    await settled();
    // This eSIM's only: a stand-in of an earlier test may still be delivering its last notification.
    const arrivals = received.slice(from).filter((r) => r.body.content['esimTranNo'] === esim['esimTranNo']);
    expect(arrivals.map((r) => r.body.content['smdpStatus'])).toEqual(['DOWNLOAD', 'INSTALLATION', 'ENABLED', 'ENABLED', 'ENABLED']);
    expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(290);
  });

  it('lists the profile details the partner gives: apn, eid once downloaded, msisdn, qrCodeUrl, shortUrl, pin, puk (docs, Query All Allocated Profiles)', async () => {
    const esim = await allocatedEsim();
    expect(esim).toMatchObject({
      apn: expect.stringMatching(/^[a-z0-9.-]+$/),
      msisdn: expect.stringMatching(/^\d{10,15}$/),
      imsi: expect.stringMatching(/^\d{15}$/),
      qrCodeUrl: expect.stringMatching(/^https:\/\/\S+\/[0-9a-f]{32}\.png$/),
      pin: '',
      puk: '',
      eid: '',
    });
    expect(`${esim['shortUrl']}.png`).toBe(esim['qrCodeUrl']);
  });
});

describe('VALIDITY_USAGE (docs, Webhooks: about a day before the end)', () => {
  it('in the current shape, with esimTranNo and notifyId; the validity now ends within a day', async () => {
    const esim = await allocatedEsim();
    standIn.markInstalled(esim['esimTranNo']);
    standIn.sendValidityUsage(esim['esimTranNo']);
    const body = sent().at(-1)!;
    expect(body).toEqual({
      notifyType: 'VALIDITY_USAGE',
      notifyId: expect.stringMatching(/^[0-9a-f]{32}$/),
      eventGenerateTime: expect.any(String),
      content: {
        iccid: esim['iccid'],
        orderNo: esim['orderNo'],
        esimTranNo: esim['esimTranNo'],
        transactionId: 'order-1',
        remain: 1,
        totalDuration: esim['totalDuration'],
        durationUnit: 'DAY',
        expiredTime: expect.stringMatching(/\+0000$/),
      },
    });
    const profile = await profileOf(esim['esimTranNo']);
    expect(profile['expiredTime']).toBe(body.content['expiredTime']);
    const left = Date.parse(profile['expiredTime'].replace('+0000', 'Z')) - Date.now();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(DAY_MS);
  });

  it('in the older shape: no esimTranNo, no notifyId, no eventGenerateTime', async () => {
    const esim = await allocatedEsim();
    standIn.markInstalled(esim['esimTranNo']);
    standIn.sendValidityUsage(esim['esimTranNo'], 'older');
    expect(sent().at(-1)).toEqual({
      notifyType: 'VALIDITY_USAGE',
      content: {
        orderNo: esim['orderNo'],
        transactionId: 'order-1',
        iccid: esim['iccid'],
        durationUnit: 'DAY',
        totalDuration: esim['totalDuration'],
        expiredTime: expect.stringMatching(/\+0000$/),
        remain: 1,
      },
    });
    await settled();
    expect(received.at(-1)!.body).toEqual(sent().at(-1));
  });

  it('only for an eSIM in use: its validity has not started before', async () => {
    const esim = await allocatedEsim();
    expect(() => standIn.sendValidityUsage(esim['esimTranNo'])).toThrow(/not in use/);
  });
});

describe('CHECK_HEALTH (docs, Webhooks: Endpoint Setup; Set Webhook)', () => {
  const health = { notifyType: 'CHECK_HEALTH', content: { orderNo: '1234567890', orderStatus: 'Test' } };

  it('webhook/save sends CHECK_HEALTH to the new URL, and saves it once it answered', async () => {
    await standIn.close();
    standIn = await startEsimAccessStandIn({ accessCode, secretKey, allocationDelayMs: 50 });
    expect(standIn.webhookUrl).toBeUndefined();
    const saved = await post('webhook/save', { webhook: receiverUrl });
    expect(saved).toMatchObject({ success: true, obj: {} });
    expect(received.map((r) => r.body)).toEqual([{ ...health, notifyId: expect.any(String), eventGenerateTime: expect.any(String) }]);
    expect(standIn.webhookUrl).toBe(receiverUrl);
    expect(standIn.notifications.map((n) => [n.body.notifyType, n.status])).toEqual([['CHECK_HEALTH', 200]]);
  });

  it('refuses a URL whose test send fails, and keeps the one it had', async () => {
    answer = { status: 500, delayMs: () => 0 };
    const refused = await post('webhook/save', { webhook: `${receiverUrl}/other` });
    expect(refused).toMatchObject({ success: false, obj: null });
    expect(standIn.webhookUrl).toBe(receiverUrl);
    expect((await post('webhook/save', { webhook: 'http://127.0.0.1:9/down' })).success).toBe(false);
    expect((await post('webhook/save', {})).errorCode).toBe('000105');
    expect(standIn.webhookUrl).toBe(receiverUrl);
  });

  it('sends one on demand: sendCheckHealth() and POST /_stand-in/check-health', async () => {
    expect(await standIn.sendCheckHealth()).toBe(200);
    expect((await fetch(`${standIn.url}/_stand-in/check-health`, { method: 'POST', body: '{}' })).status).toBe(200);
    await settled();
    expect(received.map((r) => r.body.notifyType)).toEqual(['CHECK_HEALTH', 'CHECK_HEALTH']);
  });
});

describe('suspend, unsuspend, revoke (docs: Suspend, Unsuspend and Revoke Profile; Webhooks, ESIM_STATUS)', () => {
  const balance = async () => ((await post('balance/query', {})).obj as unknown as { balance: number }).balance;

  it('suspends an eSIM in use: SUSPENDED, no data, no top-up; unsuspended, it is in use again', async () => {
    const reloadable = standIn.packages.find((p) => standIn.topUpsOf(p.packageCode).length > 0)!;
    const esim = await allocatedEsim('order-suspend', reloadable.packageCode);
    const esimTranNo = esim['esimTranNo'];
    standIn.markInstalled(esimTranNo);
    const before = sent().length;

    const suspended = await post('esim/suspend', { esimTranNo });
    expect(suspended).toMatchObject({ success: true, errorCode: null, obj: {} });
    expect(await profileOf(esimTranNo)).toMatchObject({ esimStatus: 'SUSPENDED', smdpStatus: 'ENABLED' });
    expect(steps(before)).toEqual(['ESIM_STATUS SUSPENDED/ENABLED']);
    // No data service: no data used, no top-up, no second suspend.
    expect(() => standIn.setUsage(esimTranNo, 1_000)).toThrow('carries no data');
    const topUp = { esimTranNo, packageCode: standIn.topUpsOf(reloadable.packageCode)[0]!.packageCode, transactionId: 'top-up-1' };
    expect((await post('esim/topup', topUp)).errorCode).toBe('200002');
    expect((await post('esim/suspend', { esimTranNo })).errorCode).toBe('200002');

    expect(await post('esim/unsuspend', { esimTranNo })).toMatchObject({ success: true, obj: {} });
    expect(await profileOf(esimTranNo)).toMatchObject({ esimStatus: 'IN_USE', smdpStatus: 'ENABLED' });
    expect(steps(before)).toEqual(['ESIM_STATUS SUSPENDED/ENABLED', 'ESIM_STATUS IN_USE/ENABLED']);
    expect((await post('esim/unsuspend', { esimTranNo })).errorCode).toBe('200002');
    expect((await post('esim/topup', topUp)).success).toBe(true);
    standIn.setUsage(esimTranNo, 1_000);
    expect(await profileOf(esimTranNo)).toMatchObject({ orderUsage: 1_000 });
  });

  it('unsuspends an eSIM never installed back to GOT_RESOURCE, still cancellable; takes the iccid too', async () => {
    const esim = await allocatedEsim('order-new');
    expect((await post('esim/suspend', { iccid: esim['iccid'] })).success).toBe(true);
    expect(await profileOf(esim['esimTranNo'])).toMatchObject({ esimStatus: 'SUSPENDED', smdpStatus: 'RELEASED' });
    expect(() => standIn.installTo(esim['esimTranNo'], 'DOWNLOAD')).toThrow('suspended');
    expect((await post('esim/unsuspend', { iccid: esim['iccid'] })).success).toBe(true);
    expect(await profileOf(esim['esimTranNo'])).toMatchObject({ esimStatus: 'GOT_RESOURCE', smdpStatus: 'RELEASED' });
    expect((await post('esim/cancel', { esimTranNo: esim['esimTranNo'] })).success).toBe(true);
  });

  it('revokes for good, a suspended eSIM too, refunding nothing; nothing acts on it afterwards', async () => {
    const esim = await allocatedEsim('order-revoke');
    const esimTranNo = esim['esimTranNo'];
    standIn.markInstalled(esimTranNo);
    expect((await post('esim/suspend', { esimTranNo })).success).toBe(true);
    const balanceBefore = await balance();
    const before = sent().length;

    expect(await post('esim/revoke', { esimTranNo })).toMatchObject({ success: true, obj: {} });
    expect(await profileOf(esimTranNo)).toMatchObject({ esimStatus: 'REVOKED' });
    expect(steps(before)).toEqual(['ESIM_STATUS REVOKED/ENABLED']);
    expect(await balance()).toBe(balanceBefore);
    for (const call of ['esim/revoke', 'esim/suspend', 'esim/unsuspend', 'esim/cancel']) {
      expect((await post(call, { esimTranNo })).errorCode, call).toBe('200002');
    }
    expect(() => standIn.setUsage(esimTranNo, 1)).toThrow('carries no data');
    expect(() => standIn.installTo(esimTranNo, 'IN_USE')).toThrow('revoked');
  });

  it('revokes an eSIM never installed without refunding it, unlike a cancel', async () => {
    const esim = await allocatedEsim('order-revoke-new');
    const balanceBefore = await balance();
    expect((await post('esim/revoke', { esimTranNo: esim['esimTranNo'] })).success).toBe(true);
    expect(await balance()).toBe(balanceBefore);
    expect(await profileOf(esim['esimTranNo'])).toMatchObject({ esimStatus: 'REVOKED', smdpStatus: 'RELEASED' });
  });

  it('refuses an unknown eSIM (310272) and a request naming none (000105)', async () => {
    for (const call of ['esim/suspend', 'esim/unsuspend', 'esim/revoke']) {
      expect((await post(call, { esimTranNo: '00000000000000' })).errorCode, call).toBe('310272');
      expect((await post(call, { esimTranNo: '', iccid: '' })).errorCode, call).toBe('000105');
    }
  });
});

describe('the same hooks over HTTP, for tests in another process', () => {
  it('installs to a stage and sends VALIDITY_USAGE by transactionId', async () => {
    const esim = await allocatedEsim('order-http');
    const control = (name: string, body: object) =>
      fetch(`${standIn.url}/_stand-in/${name}`, { method: 'POST', body: JSON.stringify(body) });
    expect((await control('install', { transactionId: 'order-http', stage: 'DOWNLOAD' })).status).toBe(200);
    expect(await profileOf(esim['esimTranNo'])).toMatchObject({ esimStatus: 'GOT_RESOURCE', smdpStatus: 'DOWNLOAD' });
    expect((await control('validity', { transactionId: 'order-http' })).status).toBe(409);
    expect((await control('install', { iccid: esim['iccid'] })).status).toBe(200);
    expect((await control('validity', { iccid: esim['iccid'], shape: 'older' })).status).toBe(200);
    expect(sent().at(-1)).toMatchObject({ notifyType: 'VALIDITY_USAGE', content: { iccid: esim['iccid'] } });
    expect(sent().at(-1)).not.toHaveProperty('notifyId');
  });
});

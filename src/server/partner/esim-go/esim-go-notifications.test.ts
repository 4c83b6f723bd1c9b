import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEsimGoStandIn, type EsimGoStandIn } from '../../../../stand-ins/esim-go/server.ts';
import type { PartnerNotification } from '../partner.types.ts';
import { createEsimGoPartner } from './adapter.ts';
import { esimGoModule } from './module.ts';
import { parseEsimGoNotification, verifyEsimGoSignature } from './notifications.ts';

// eSIM Go's signed callbacks: the signature in hex and in base64, and each callback in our terms,
// from the stand-in over real HTTP (a receiver that checks as the shop's webhook would) and from the docs' examples.
const API_KEY = 'callback-test-key';
const sign = (body: string, key = API_KEY, encoding: 'hex' | 'base64' = 'base64') =>
  createHmac('sha256', key).update(body).digest(encoding);

// The shop's callback endpoint stand-in: reads each as the shop's route does (the module's callbacks), records.
const callbacks = esimGoModule.fromEnv({ ESIM_GO_API_KEY: API_KEY })!.callbacks!;
let receiver: Server;
let callbackUrl: string;
let received: { verified: boolean; notification: PartnerNotification | undefined }[];
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const read = callbacks(raw, (name) => req.headers[name] as string | undefined);
      const verified = read !== 'unsigned';
      received.push({ verified, notification: verified ? read : undefined });
      res.writeHead(verified ? 200 : 401).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  callbackUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callbacks/esim-go`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

let standIn: EsimGoStandIn;
beforeEach(async () => {
  received = [];
  standIn = await startEsimGoStandIn({ apiKey: API_KEY, callbackUrl });
});
afterEach(() => standIn.close());

async function settled(count: number) {
  for (let i = 0; i < 100 && (received.length < count || standIn.callbacks.some((c) => c.status === null)); i++)
    await new Promise((r) => setTimeout(r, 20));
  return received;
}

describe('verifyEsimGoSignature', () => {
  const body = '{"iccid":"8944538532008160222","alertType":"Utilisation","bundle":{"name":"A_BUNDLE_1GB"}}';

  it("accepts the body's HMAC-SHA256 with the API key in base64 (the API reference) and in hex (the webhooks guide)", () => {
    expect(verifyEsimGoSignature(body, sign(body, API_KEY, 'base64'), API_KEY)).toBe(true);
    expect(verifyEsimGoSignature(body, sign(body, API_KEY, 'hex'), API_KEY)).toBe(true);
    expect(verifyEsimGoSignature(body, sign(body, API_KEY, 'hex').toUpperCase(), API_KEY)).toBe(true);
  });

  it('refuses another key, another body, a missing or malformed header', () => {
    expect(verifyEsimGoSignature(body, sign(body, 'another-key'), API_KEY)).toBe(false);
    expect(verifyEsimGoSignature(`${body} `, sign(body), API_KEY)).toBe(false);
    expect(verifyEsimGoSignature(body, sign(JSON.stringify(JSON.parse(body), null, 1)), API_KEY)).toBe(false);
    for (const header of [undefined, '', 'sha256=abc', sign(body).slice(0, 20), `${sign(body, API_KEY, 'hex')}00`])
      expect(verifyEsimGoSignature(body, header, API_KEY), String(header)).toBe(false);
    expect(verifyEsimGoSignature(body, sign(body, ''), '')).toBe(false);
  });
});

describe("the stand-in's callbacks, verified and parsed", () => {
  for (const encoding of ['base64', 'hex'] as const) {
    it(`reads an eSIM's life from its ${encoding}-signed callbacks: installed, first use, data used`, async () => {
      standIn.setSignatureEncoding(encoding);
      const client = createEsimGoPartner({ baseUrl: standIn.url, apiKey: API_KEY });
      const { partnerOrderNo } = await client.orderEsim({ transactionId: 'order-cb', partnerCode: 'esim_1GB_7D_DE_V2', count: 1 });
      const answer = await client.queryProfiles({ partnerOrderNo });
      const { iccid } = answer.status === 'ready' ? answer.profiles[0]! : { iccid: '' };
      standIn.installEsim(iccid, 'Installed');
      standIn.useData(iccid, 600_000_000);
      const all = await settled(3);
      expect(all.every((r) => r.verified)).toBe(true);
      const about = { notifyId: undefined, partnerOrderNo: undefined, transactionId: undefined, esimTranNo: undefined, iccid };
      expect(all.map((r) => r.notification)).toEqual([
        { kind: 'smdp_event', ...about, status: undefined, installed: true, installStep: 'installed' },
        { kind: 'esim_status', ...about, status: 'active', installed: true, installStep: 'in_use' },
        { kind: 'data_usage', ...about, usedBytes: 600_000_000, totalBytes: 1_000_000_000, measuredAt: null },
      ]);
      expect(standIn.callbacks.map((c) => c.status)).toEqual([200, 200, 200]);
    });
  }

  it('is refused by the receiver when signed with another key', async () => {
    await standIn.close();
    standIn = await startEsimGoStandIn({ apiKey: 'someone-else', callbackUrl });
    const client = createEsimGoPartner({ baseUrl: standIn.url, apiKey: 'someone-else' });
    const { partnerOrderNo } = await client.orderEsim({ transactionId: 'order-x', partnerCode: 'esim_1GB_7D_DE_V2', count: 1 });
    const answer = await client.queryProfiles({ partnerOrderNo });
    standIn.useData(answer.status === 'ready' ? answer.profiles[0]!.iccid : '', 1_000);
    expect((await settled(1)).every((r) => !r.verified)).toBe(true);
    expect(standIn.callbacks.every((c) => c.status === 401)).toBe(true);
  });
});

describe('parseEsimGoNotification on the documented examples', () => {
  it("reads First Use with the ICCID from the raw text (the docs' example sends it as a number)", () => {
    const raw =
      '{ "alertType": "FirstUse", "iccid": 8944538532008160000, "bundle": { "name": "A_BUNDLE_1GB", "initialQuantity": 1000000000, "remainingQuantity": 1000000000, "startTime": "2006-01-02T15:04:05Z", "endTime": "2007-01-02T15:04:05Z" }}';
    expect(parseEsimGoNotification(raw)).toMatchObject({
      kind: 'esim_status',
      iccid: '8944538532008160000',
      status: 'active',
      installStep: 'in_use',
    });
    // Parsed already, the number lost digits: it names no eSIM.
    expect(parseEsimGoNotification(JSON.parse(raw))).toBeUndefined();
  });

  it("reads the V3 usage callback's example (eSIM Usage Callback)", () => {
    const body = {
      iccid: '8944538532008160222',
      alertType: 'Utilisation',
      bundle: {
        id: '123456789',
        name: 'A_BUNDLE_20GB_30D_EU_U',
        description: 'A Bundle, 20GB, 30 Days, EU, Unthrottled',
        initialQuantity: 20000000000,
        remainingQuantity: 19000000000,
        startTime: '2006-01-02T15:04:05Z',
        endTime: '2007-01-02T15:04:05Z',
        reference: '12345-12345-12345-12345-0',
        unlimited: false,
      },
    };
    expect(parseEsimGoNotification(body)).toEqual({
      kind: 'data_usage',
      notifyId: undefined,
      partnerOrderNo: undefined,
      transactionId: undefined,
      esimTranNo: undefined,
      iccid: '8944538532008160222',
      usedBytes: 1_000_000_000,
      totalBytes: 20_000_000_000,
      measuredAt: null,
    });
  });

  it("reads eSIM Deletion Scheduled as the eSIM's end in 7 days, eSIM Deleted as closed, a profile removed as deleted", () => {
    expect(
      parseEsimGoNotification({ date: '2026-06-22T13:03:31Z', event: 'esim.deletion_scheduled', iccid: '8943108161000670038' }),
    ).toMatchObject({
      kind: 'validity',
      iccid: '8943108161000670038',
      expiresAt: new Date('2026-06-29T13:03:31Z'),
      daysLeft: 7,
    });
    expect(parseEsimGoNotification({ date: '2026-06-29T13:20:02Z', event: 'esim.deleted', iccid: '8943108161000670038' })).toMatchObject({
      kind: 'esim_status',
      status: 'cancelled',
    });
    expect(
      parseEsimGoNotification({ iccid: '8944538532008160222', profileStatus: 'Released', timestamp: '2026-11-02T14:05:18Z' }),
    ).toMatchObject({
      kind: 'smdp_event',
      installStep: 'deleted',
      installed: true,
    });
  });

  it('answers undefined for junk and for what the shop does not act on, never throwing', () => {
    const junk: unknown[] = [
      undefined,
      null,
      42,
      'not json',
      '[]',
      {},
      { alertType: 'Utilisation' },
      { alertType: 'CountryChange', iccid: '8944538532008160222', country: { code: 'NO', name: 'Norway' } },
      { event: 'esim.something_new', iccid: '8944538532008160222' },
      { iccid: '8944538532008160222', profileStatus: 'Unavailable' },
      { alertType: 'FirstUse', iccid: 12 },
    ];
    for (const body of junk) expect(parseEsimGoNotification(body), JSON.stringify(body)).toBeUndefined();
  });
});

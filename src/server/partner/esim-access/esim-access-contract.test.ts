import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerError } from '../partner.ts';
import type { PartnerNotification } from '../partner.types.ts';
import { createEsimAccessPartner } from './adapter.ts';
import { parsePartnerNotification } from './notifications.ts';
import { testFacts } from '../../../catalogue/test-facts.ts';
import { mapEsimAccessPackage, type EsimAccessPackage } from './schemas.ts';

/**
 * The adapter against eSIM Access's own documented examples (tests/fixtures/esim-access, where
 * each comes from is in its README): whatever the stand-in does, the partner's real answers and
 * notifications as its docs show them must be read, each into what the shop acts on.
 */
const FIXTURES = 'tests/fixtures/esim-access';
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

// The partner's answers served as documented, whatever was asked (the signature is not checked here).
let server: Server;
let baseUrl: string;
const answers = new Map<string, unknown>();
/** What was asked, call and body, oldest first. */
const asked: { call: string; body: unknown }[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call = (req.url ?? '').replace('/api/v1/open/', '');
      asked.push({ call, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') });
      const answer = answers.get(call);
      res.writeHead(answer ? 200 : 404, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const partner = () => createEsimAccessPartner({ baseUrl, accessCode: 'code', secretKey: 'secret', retries: 0 });

describe("the partner's documented answers", () => {
  it('package/list: a plan without slug or location codes in its network list (docs, Get All Data Packages)', async () => {
    const [documented] = (fixture('package-list.json') as { obj: { packageList: EsimAccessPackage[] } }).obj.packageList;
    expect([mapEsimAccessPackage(documented!)]).toEqual([
      expect.objectContaining({
        partnerCode: 'CKH139',
        // The docs call slug an alias of packageCode, and their example has none.
        slug: 'CKH139',
        name: 'Slovenia 5GB 30Days',
        countries: ['SI'],
        dataAmount: { value: 5, unit: 'GB' },
        dataBytes: 5_368_709_120,
        validity: 30,
        validityUnit: 'day',
        wholesaleUsdE4: 112_500,
      }),
    ]);
    // Its network list names Slovenia without an operator: the catalogue cannot say which networks
    // it uses, so the listing fails (the generator never publishes a plan without networks).
    answers.set('package/list', fixture('package-list.json'));
    await expect(partner().listPackages()).rejects.toThrow('package CKH139: no operators listed for SI');
  });

  it("package/list: every plan fact (a package with the field table's fields, as a live call answered it)", async () => {
    answers.set('package/list', fixture('package-list-facts.json'));
    expect(await partner().listPackages()).toEqual([
      expect.objectContaining({
        partnerCode: 'CKH002',
        slug: 'ES_3_30',
        countries: ['ES'],
        dataAmount: { value: 3, unit: 'GB' },
        validity: 30,
        wholesaleUsdE4: 18_000,
        topUp: true,
        // activeType 2: from the first connection; unusedValidTime 180; supportTopUpType 2; smsStatus 0
        // (testFacts' defaults); ipExport 'NL/FR': its first country.
        facts: testFacts(['ES'], {
          networks: [
            {
              country: 'ES',
              operators: [
                { name: 'Vodafone', networkType: '4G' },
                { name: 'Orange', networkType: '4G' },
              ],
            },
          ],
          trafficExit: 'NL',
        }),
      }),
    ]);
  });

  it('package/list of top-ups: TOPUP_ codes (the top-up walkthrough)', async () => {
    answers.set('package/list', fixture('package-list-topup.json'));
    expect(await partner().listTopUps('89852000263389211111')).toEqual([
      expect.objectContaining({
        partnerCode: 'TOPUP_CKH491',
        slug: 'TOPUP_CKH491',
        countries: ['CA', 'US'],
        dataAmount: { value: 1, unit: 'GB' },
        validity: 7,
        wholesaleUsdE4: 70_000,
      }),
    ]);
  });

  it('esim/query: the profile with its APN (docs, Query All Allocated Profiles)', async () => {
    answers.set('esim/query', fixture('esim-query.json'));
    expect(await partner().queryProfiles({ esimTranNo: '23120118156818' })).toEqual({
      status: 'ready',
      profiles: [
        {
          esimTranNo: '23120118156818',
          transactionId: 'test344343433',
          iccid: '8943108170000775671',
          activationCode: 'LPA:1$rsp-eu.redteamobile.com$43DE23C67EE747BCAD6B63E8B67B261F',
          smdpAddress: 'rsp-eu.redteamobile.com',
          matchingId: '43DE23C67EE747BCAD6B63E8B67B261F',
          apn: 'drei.at',
          status: 'cancelled',
          installed: false,
          installStep: null,
          expiresAt: new Date('2024-05-29T18:34:17Z'),
          totalBytes: 5_368_709_120,
          usedBytes: 0,
          validityDays: 30,
        },
      ],
    });
  });
});

describe('suspend, unsuspend, revoke (docs: Suspend, Unsuspend and Revoke Profile)', () => {
  // The docs show no example answer, only the field table: success, errorCode 'null or 0 when
  // successful', errorMessage, obj '{}'; a refusal is the documented 200002 ('not allowed due to the order status').
  const calls = [
    ['esim/suspend', (esimTranNo: string) => partner().suspendProfile(esimTranNo)],
    ['esim/unsuspend', (esimTranNo: string) => partner().unsuspendProfile(esimTranNo)],
    ['esim/revoke', (esimTranNo: string) => partner().revokeProfile(esimTranNo)],
  ] as const;

  it.each(calls)('%s: sends the esimTranNo and takes the documented answer', async (call, act) => {
    answers.set(call, { success: true, errorCode: null, errorMessage: null, obj: {} });
    asked.length = 0;
    await expect(act('23120118156818')).resolves.toBeUndefined();
    expect(asked).toEqual([{ call, body: { esimTranNo: '23120118156818' } }]);
    answers.set(call, { success: 'true', errorCode: '0', obj: {} });
    await expect(act('23120118156818')).resolves.toBeUndefined();
  });

  it.each(calls)("%s: 200002 is a refusal ('not_allowed'), nothing applied", async (call, act) => {
    answers.set(call, {
      success: false,
      errorCode: '200002',
      errorMessage: 'This operation is not allowed due to the order status.',
      obj: null,
    });
    const error = await act('23120118156818').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerError);
    expect(error).toMatchObject({ call, code: '200002', kind: 'not_allowed', retryable: false, refused: true });
  });
});

describe("the partner's documented notifications (docs, Webhooks)", () => {
  const expected: Record<string, PartnerNotification> = {
    'check-health.json': { kind: 'health_check', notifyId: '918ff7f6f41143078585a85797e613f7' },
    'check-health-older.json': { kind: 'health_check', notifyId: undefined },
    'order-status.json': {
      kind: 'order_ready',
      notifyId: '447602ac1e5c4bb4980f786b0c2934d6',
      partnerOrderNo: 'B26042217160011',
      transactionId: '7544949834056-1-TR_50_30',
    },
    'order-status-older.json': { kind: 'order_ready', notifyId: undefined, partnerOrderNo: 'B23072016497499', transactionId: undefined },
    'esim-status.json': {
      kind: 'esim_status',
      notifyId: '83eb2b243a5545d38ec26cebfcf4bd8d',
      partnerOrderNo: 'B26042216320015',
      transactionId: '7488352420083-1-ES_10_30',
      esimTranNo: '26042216320015',
      iccid: '8910300000059824319',
      status: 'active',
      installed: true,
      installStep: 'in_use',
    },
    'esim-status-cancel.json': {
      kind: 'esim_status',
      notifyId: '4038b3dfb1b050bf9f02501df67284f3',
      partnerOrderNo: 'B25080823490018',
      transactionId: 'e23111e4d07746889c7bce41cf3f1b16',
      esimTranNo: '25080323490020',
      iccid: '89852000263413436720',
      status: 'cancelled',
      installed: false,
      installStep: undefined,
    },
    // SM-DP+ events: hints about installation, told apart from ESIM_STATUS (far more of them).
    'smdp-event.json': {
      kind: 'smdp_event',
      notifyId: '7d6ab37b44b9461087569ad4393a8b4c',
      partnerOrderNo: 'B26042112200025',
      transactionId: '7542454845768-1-GR_1_7',
      esimTranNo: '26042112200028',
      iccid: '8910300000059818839',
      status: 'active',
      installed: true,
      installStep: 'in_use',
    },
    // Downloaded to a phone: no longer refundable, though the partner still says GOT_RESOURCE.
    'smdp-event-download.json': {
      kind: 'smdp_event',
      notifyId: '5fcc219e32dc484598d3fd700cf3738d',
      partnerOrderNo: 'B25091113270004',
      transactionId: '12068951785848-1-1',
      esimTranNo: '25091113270004',
      iccid: '8997250230000292199',
      status: 'installed',
      installed: true,
      installStep: 'downloaded',
    },
    'data-usage.json': {
      kind: 'data_usage',
      notifyId: '7cb37a1e9ed2468e9243e6ccae682125',
      partnerOrderNo: 'B26041615170028',
      transactionId: '7533748552008-1-TH_20_30',
      esimTranNo: '26041615170028',
      iccid: '89852240810732202668',
      usedBytes: 10_741_066_164,
      totalBytes: 21_474_836_480,
      measuredAt: new Date('2026-04-22T15:53:03Z'),
    },
    'validity-usage.json': {
      kind: 'validity',
      notifyId: 'd84977dbcdbd48eb96379300b1605b04',
      partnerOrderNo: 'B26032416140018',
      transactionId: '6900674724119-1-JP_5_30_IIJ',
      esimTranNo: '26032416140018',
      iccid: '8981440039980773689',
      expiresAt: new Date('2026-04-23T17:13:19Z'),
      daysLeft: 1,
    },
    // The older sample names the eSIM only by its ICCID and its order.
    'validity-usage-older.json': {
      kind: 'validity',
      notifyId: undefined,
      partnerOrderNo: 'B23072016497499',
      transactionId: 'Your_txn_id',
      esimTranNo: undefined,
      iccid: '894310817000000003',
      expiresAt: new Date('2024-01-11T08:10:19Z'),
      daysLeft: 1,
    },
  };

  it.each(Object.keys(expected))('%s', (name) => {
    const body = fixture(join('webhooks', name));
    expect(parsePartnerNotification(body)).toEqual(expected[name]);
    // As the webhook receives it: text.
    expect(parsePartnerNotification(JSON.stringify(body))).toEqual(expected[name]);
  });

  it('covers every documented notification kept as a fixture', () => {
    expect(readdirSync(join(FIXTURES, 'webhooks')).sort()).toEqual(Object.keys(expected).sort());
  });
});

import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REGIONS } from '../../../../scripts/lib/geography.ts';
import { FAILURES, startEsimGoStandIn, type EsimGoStandIn } from '../../../../stand-ins/esim-go/server.ts';
import { partnerFailure } from '../../../../tests/support/partner-failure.ts';
import type { PartnerBudget } from '../partner-budget.types.ts';
import { createEsimGoPartner } from './adapter.ts';
import { esimGoConfigFromEnv, type EsimGoConfig } from './config.ts';
import { esimKey, parseEsimKey } from './esim-key.ts';
import { daysFromName } from './esim-reads.ts';
import { mapEsimGoBundle, mapEsimGoCataloguePackage } from './packages.ts';
import { testFacts } from '../../../catalogue/test-facts.ts';
import type { EsimGoBundle, EsimGoNetworks } from './schemas.ts';

// The adapter's transport (the key, errors, retries, eSIM Go's rate limit) and catalogue against the
// eSIM Go stand-in over real HTTP, and the mapping of bundles to our packages.
const API_KEY = 'transport-test-key';
let standIn: EsimGoStandIn;
beforeEach(async () => {
  standIn = await startEsimGoStandIn({ apiKey: API_KEY });
});
afterEach(() => standIn.close());

const partner = (config: Partial<EsimGoConfig> = {}) =>
  createEsimGoPartner({ baseUrl: standIn.url, apiKey: API_KEY, backoffMs: 10, ...config });
/** No turn-taking of our own: eSIM Go's rate limit meets the requests as they come. */
const NO_BUDGET: PartnerBudget = { acquire: async () => () => undefined };

describe('authentication and errors', () => {
  it('sends the key in X-API-Key; a wrong one is refused with 401, not retried, and nothing is bought', async () => {
    await expect(partner().balance()).resolves.toBeGreaterThan(0);
    const error = await partnerFailure(
      partner({ apiKey: 'not-the-key' }).orderEsim({ transactionId: 'o-1', partnerCode: 'esim_1GB_7D_DE_V2', count: 1 }),
    );
    expect(error).toMatchObject({ call: 'POST /orders', code: '401', retryable: false, attempts: 1, refused: true });
    expect(error.message).toMatch(/^eSIM Go POST \/orders failed: HTTP 401 Unauthorized/);
    expect(standIn.orderCount).toBe(0);
  });

  it('retries a 5xx and a dropped connection on a read, and gives up after the configured retries naming the last answer', async () => {
    standIn.failNext(FAILURES.serverError);
    standIn.failNext({ drop: true });
    await expect(partner().balance()).resolves.toBeGreaterThan(0);
    expect(standIn.requests.map((r) => r.status)).toEqual([500, 0, 200]);

    standIn.failNext(FAILURES.serverError, { count: 5 });
    const error = await partnerFailure(partner({ retries: 2 }).balance());
    expect(error.message).toBe('eSIM Go GET /organisation failed after 3 attempts: HTTP 500 Internal Server Error');
    expect(error).toMatchObject({ code: 'HTTP 500', retryable: true, refused: false });
  });

  it('names the call and no code when eSIM Go cannot be reached or does not answer in time', async () => {
    standIn.failNext(FAILURES.timeout, { count: 2 });
    const late = await partnerFailure(partner({ timeoutMs: 200, retries: 1 }).balance());
    expect(late).toMatchObject({ call: 'GET /organisation', code: undefined, retryable: true, attempts: 2 });
    expect(late.message).toMatch(/no answer/);
    await standIn.close();
    const gone = await partnerFailure(partner({ retries: 0 }).balance());
    expect(gone).toMatchObject({ code: undefined, retryable: true, refused: false });
  });

  it("reads an answer that is not eSIM Go's error shape as HTTP nnn: not a refusal we could read", async () => {
    const proxy: Server = createServer((_req, res) =>
      res.writeHead(400, { 'Content-Type': 'text/html' }).end('<html>Bad gateway page</html>'),
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const address = proxy.address();
    const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v2.5`;
    const error = await partnerFailure(createEsimGoPartner({ baseUrl, apiKey: API_KEY }).balance());
    expect(error).toMatchObject({ code: 'HTTP 400', retryable: false, refused: false });
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });
});

describe("eSIM Go's rate limit", () => {
  it("waits a 429's Retry-After and sends again, even a transaction: eSIM Go refused it before doing anything", async () => {
    standIn.failNext(FAILURES.rateLimited, { call: 'POST /orders', where: (body) => (body as { type?: string }).type === 'transaction' });
    await partner().orderEsim({ transactionId: 'o-429', partnerCode: 'esim_1GB_7D_DE_V2', count: 1 });
    const tries = standIn.requests.filter((r) => r.call === 'POST /orders' && (r.body as { type: string }).type === 'transaction');
    expect(tries.map((r) => r.status)).toEqual([429, 200]);
    expect(tries[1]!.receivedAt - tries[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
    expect(standIn.orderCount).toBe(1);
  });

  it('meets the real limit without a budget: every 429 is sent again after its Retry-After, and all 25 reads come back', async () => {
    const client = partner({ budget: NO_BUDGET });
    const answers = await Promise.all(Array.from({ length: 25 }, () => client.balance()));
    expect(answers.every((a) => a > 0)).toBe(true);
    const refused = standIn.requests.filter((r) => r.status === 429);
    // 25 at once span two fixed windows of 10 at most (unless the machine stalls): some are refused, and each is sent again.
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.message === 'Rate limit exceeded')).toBe(true);
    expect(standIn.requests.filter((r) => r.status === 200)).toHaveLength(25);
  }, 20_000);

  it('keeps to 10 requests a second with its own budget: 25 reads, none refused, no 11 within a second', async () => {
    const client = partner();
    await Promise.all(Array.from({ length: 25 }, () => client.balance()));
    expect(standIn.requests.every((r) => r.status === 200)).toBe(true);
    const arrivals = standIn.requests.map((r) => r.receivedAt);
    for (let i = 10; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 10]!).toBeGreaterThanOrEqual(1000);
  }, 20_000);
});

describe('listPackages', () => {
  it("lists a country's own bundles in our terms, with their plan facts", async () => {
    const packages = await partner().listPackages({ location: 'DE' });
    const germany = standIn.bundles.filter((b) => b.countries.length === 1 && b.countries[0]!.iso === 'DE');
    expect(packages.map((p) => p.partnerCode).sort()).toEqual(germany.map((b) => b.name).sort());
    expect(packages.find((p) => p.partnerCode === 'esim_1GB_7D_DE_V2')).toEqual({
      partnerCode: 'esim_1GB_7D_DE_V2',
      slug: 'esim_1GB_7D_DE_V2',
      name: 'eSIM, 1GB, 7 Days, Germany, V2',
      countries: ['DE'],
      dataAmount: { value: 1, unit: 'GB' },
      dataBytes: 1_000_000_000,
      validity: 7,
      validityUnit: 'day',
      wholesaleUsdE4: Math.round(germany[0]!.price * 10_000),
      topUp: true,
      // A fixed volume from the first connection, 180 days to install, top-ups, no SMS: testFacts' defaults.
      facts: testFacts(['DE'], {
        networks: [
          {
            country: 'DE',
            operators: [
              { name: 'Telekom', networkType: '5G' },
              { name: 'Vodafone', networkType: '5G' },
              { name: 'O2', networkType: '4G' },
            ],
          },
        ],
      }),
    });
    expect(packages.find((p) => p.partnerCode === 'esim_UL_7D_DE_V2')).toMatchObject({
      dataAmount: { value: 1, unit: 'GB' },
      facts: { data: { kind: 'unlimited', after: { slowedToKbps: 512 } } },
    });
    expect(standIn.requests.map((r) => r.call)).toEqual(['GET /organisation', 'GET /catalogue', 'GET /networks']);
  });

  it('lists every bundle when asked for nothing in particular, regions with their countries sorted; one by its name', async () => {
    const all = await partner().listPackages();
    expect(all).toHaveLength(standIn.bundles.length);
    const europe = all.find((p) => p.partnerCode === 'esim_1GB_7D_EU_V2')!;
    expect(europe.countries).toEqual([...REGIONS['europe']!].sort());
    expect(europe.facts.networks.map((n) => n.country)).toEqual(europe.countries);
    const [one, ...more] = await partner().listPackages({ packageCode: 'esim_5GB_30D_FR_V2' });
    expect(more).toEqual([]);
    expect(one).toMatchObject({ countries: ['FR'], dataBytes: 5_000_000_000, validity: 30 });
    await expect(partnerFailure(partner().listPackages({ packageCode: 'esim_NOPE' }))).resolves.toMatchObject({
      code: '404',
      kind: 'not_found',
    });
  });

  it('refuses an organisation whose prices are not in US dollars', async () => {
    await standIn.close();
    standIn = await startEsimGoStandIn({ apiKey: API_KEY, currency: 'GBP' });
    const error = await partnerFailure(partner().listPackages({ location: 'DE' }));
    expect(error).toMatchObject({ code: 'currency', retryable: false });
    expect(error.message).toMatch(/GBP/);
  });
});

const GERMANY_1GB: EsimGoBundle = {
  name: 'esim_1GB_7D_DE_V2',
  description: 'eSIM, 1GB, 7 Days, Germany, V2',
  groups: ['Standard Fixed'],
  countries: [{ name: 'Germany', region: 'Europe', iso: 'DE' }],
  dataAmount: 1000,
  duration: 7,
  speed: ['4G', '5G'],
  autostart: true,
  unlimited: false,
  price: 1.1,
};
const NETWORKS: EsimGoNetworks = {
  countryNetworks: [
    { name: 'DE', networks: [{ name: 'Telekom', brandName: 'Telekom', speed: ['4G', 'LTE'] }] },
    { name: 'GB', networks: [{ name: 'EE', brandName: '', speed: [] }] },
  ],
};

describe('mapEsimGoBundle and its plan facts', () => {
  it('reads decimal megabytes, days, USD and the base countries (UK as GB)', () => {
    expect(mapEsimGoBundle({ ...GERMANY_1GB, dataAmount: 500 })).toMatchObject({
      dataAmount: { value: 500, unit: 'MB' },
      dataBytes: 500_000_000,
    });
    expect(mapEsimGoBundle({ ...GERMANY_1GB, dataAmount: 1500 }).dataAmount).toEqual({ value: 1.5, unit: 'GB' });
    expect(mapEsimGoBundle({ ...GERMANY_1GB, price: 2.35 }).wholesaleUsdE4).toBe(23_500);
    const uk = mapEsimGoBundle({ ...GERMANY_1GB, countries: [{ iso: 'UK' }, { iso: 'de' }], roamingEnabled: [{ iso: 'FR' }] });
    expect(uk.countries).toEqual(['DE', 'GB']);
  });

  it("names each covered country's operators, taking the bundle's speed when a network names none", () => {
    const facts = mapEsimGoCataloguePackage({ ...GERMANY_1GB, countries: [{ iso: 'DE' }, { iso: 'GB' }] }, NETWORKS).facts;
    expect(facts.networks).toEqual([
      { country: 'DE', operators: [{ name: 'Telekom', networkType: '4G' }] },
      { country: 'GB', operators: [{ name: 'EE', networkType: '5G' }] },
    ]);
  });

  it('refuses a bundle it cannot state truthfully, naming it and the fault', () => {
    const fail = (edit: Partial<EsimGoBundle>) => () => mapEsimGoCataloguePackage({ ...GERMANY_1GB, ...edit }, NETWORKS);
    expect(fail({ autostart: false })).toThrow('eSIM Go bundle esim_1GB_7D_DE_V2: autostart is false');
    expect(fail({ countries: [{ iso: 'FR' }] })).toThrow('no operators listed for FR');
    expect(fail({ name: 'esim_X_7D_DE_V2', unlimited: true, groups: ['Standard Unlimited Mystery'] })).toThrow(
      'an unlimited bundle of no known group',
    );
    expect(fail({ countries: [] })).toThrow('no country ISO code');
    expect(fail({ dataAmount: 0 })).toThrow('is not a volume');
  });

  it("reads the unlimited groups' daily volume and speed (Get Bundle Groups), by group or by moniker", () => {
    const data = (edit: Partial<EsimGoBundle>) =>
      mapEsimGoCataloguePackage({ ...GERMANY_1GB, unlimited: true, dataAmount: -1, ...edit }, NETWORKS);
    expect(data({ groups: ['Standard Unlimited Essential'] }).facts.data).toEqual({ kind: 'unlimited', after: { slowedToKbps: 1250 } });
    expect(data({ groups: [], name: 'esim_ULP_7D_DE_V2' })).toMatchObject({
      dataBytes: 2_000_000_000,
      facts: { data: { after: { slowedToKbps: 2000 } } },
    });
  });
});

describe('keys and names', () => {
  it("makes the eSIM's key of its ICCID and customerRef, and reads it back", () => {
    const key = esimKey({ iccid: '8944538532008160222', customerRef: 'b3a4c1e2-0000-4000-8000-000000000001' });
    expect(key).toBe('8944538532008160222:b3a4c1e2-0000-4000-8000-000000000001');
    expect(parseEsimKey(key)).toEqual({ iccid: '8944538532008160222', customerRef: 'b3a4c1e2-0000-4000-8000-000000000001' });
    expect(parseEsimKey('25030303480009')).toBeUndefined();
    expect(parseEsimKey('abc:def')).toBeUndefined();
  });

  it("reads a bundle's days from its documented moniker", () => {
    expect(
      ['esim_1GB_7D_GB_V2', 'esim_50GB_90D_RGBS_V2', 'esim_UL_1D_TR_V2', 'A_BUNDLE_20GB_30D_EU_U', 'esim_EU_PLUS'].map(daysFromName),
    ).toEqual([7, 90, 1, 30, undefined]);
  });
});

describe('configuration', () => {
  it('comes from the environment, with the production v2.5 base URL by default', () => {
    expect(esimGoConfigFromEnv({ ESIM_GO_API_KEY: ' key ' })).toEqual({ apiKey: 'key', baseUrl: 'https://api.esim-go.com/v2.5' });
    expect(esimGoConfigFromEnv({ ESIM_GO_API_KEY: 'k', ESIM_GO_BASE_URL: 'http://127.0.0.1:9/v2.5', ESIM_GO_TIMEOUT_MS: '5000' })).toEqual({
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:9/v2.5',
      timeoutMs: 5000,
    });
  });

  it('names a missing key and a bad time-out', () => {
    expect(() => esimGoConfigFromEnv({})).toThrow(/^ESIM_GO_API_KEY is not set/);
    expect(() => esimGoConfigFromEnv({ ESIM_GO_API_KEY: 'k', ESIM_GO_TIMEOUT_MS: 'soon' })).toThrow(/ESIM_GO_TIMEOUT_MS/);
  });
});

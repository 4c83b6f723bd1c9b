import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEsimAccessStandIn, type EsimAccessStandIn } from '../../../../stand-ins/esim-access/server.ts';
import { partnerFailure } from '../../../../tests/support/partner-failure.ts';
import { createEsimAccessPartner } from './adapter.ts';
import { signEsimAccessRequest } from './client.ts';
import { esimAccessConfigFromEnv } from '../../config.ts';
import type { EsimAccessConfig } from './config.ts';
import { mapEsimAccessCataloguePackage, mapEsimAccessPackage, type EsimAccessPackage } from './schemas.ts';

// The adapter against the eSIM Access stand-in over real HTTP.
const ACCESS_CODE = 'test-access-code';
const SECRET = 'test-secret-key';
let standIn: EsimAccessStandIn;
beforeEach(async () => {
  standIn = await startEsimAccessStandIn({ accessCode: ACCESS_CODE, secretKey: SECRET });
});
afterEach(() => standIn.close());

const partner = (config: Partial<EsimAccessConfig> = {}) =>
  createEsimAccessPartner({ baseUrl: standIn.url, accessCode: ACCESS_CODE, secretKey: SECRET, backoffMs: 10, ...config });

describe('signature', () => {
  it("matches the partner's documented worked example", () => {
    const signature = signEsimAccessRequest(
      { timestamp: '1628670421', requestId: '4ce9d9cdac9e4e17b3a2c66c358c1ce2', accessCode: '11111', body: '{"imsi":"326543826"}' },
      '1111',
    );
    expect(signature).toBe('7eb765e27df5373dea2dbc8c41a7d9557743e46c8054750f3d851b3fd01d0835');
  });

  it('is accepted by the partner with the right secret and refused with a wrong one, without retrying', async () => {
    await expect(partner().listPackages({ location: 'DE' })).resolves.not.toHaveLength(0);
    const error = await partnerFailure(partner({ secretKey: 'not-the-secret' }).listPackages());
    expect(error.message).toMatch(/^eSIM Access package\/list failed: 101003/);
    expect(error).toMatchObject({ call: 'package/list', code: '101003', retryable: false, attempts: 1 });
    expect(standIn.requests.map((r) => r.errorCode)).toEqual([null, '101003']);
  });

  it('refuses an unknown access code', async () => {
    const error = await partnerFailure(partner({ accessCode: 'someone-else' }).listPackages());
    expect(error.code).toBe('101003');
  });
});

describe('listPackages', () => {
  it("lists a country's packages in our terms", async () => {
    const packages = await partner().listPackages({ location: 'DE' });
    expect(standIn.requests[0]?.body).toEqual({ type: 'BASE', locationCode: 'DE' });
    expect(packages.map((p) => `${p.dataAmount.value} ${p.dataAmount.unit} / ${p.validity} ${p.validityUnit}`)).toEqual(
      expect.arrayContaining(['1 GB / 7 day', '3 GB / 15 day', '5 GB / 30 day']),
    );
    for (const pkg of packages) {
      const raw = standIn.packages.find((p) => p.packageCode === pkg.partnerCode)!;
      expect(pkg).toMatchObject({ countries: ['DE'], slug: raw.slug, wholesaleUsdE4: raw.price, dataBytes: raw.volume });
    }
  });

  it('lists every location, regions with their countries, when asked for nothing in particular', async () => {
    const packages = await partner().listPackages();
    expect(packages).toHaveLength(standIn.packages.length);
    expect(new Set(packages.flatMap((p) => p.countries)).size).toBeGreaterThan(200);
    const europe = packages.find((p) => p.name === 'Europe 1GB 7Days')!;
    expect(europe.countries).toEqual(expect.arrayContaining(['DE', 'FR', 'IT']));
    expect(europe.countries).toEqual([...europe.countries].sort());
  });

  it('finds one package by its code', async () => {
    const [wanted] = standIn.packages;
    const packages = await partner().listPackages({ packageCode: wanted!.packageCode });
    expect(packages.map((p) => p.partnerCode)).toEqual([wanted!.packageCode]);
  });
});

describe('errors and retries', () => {
  it('retries a 5xx answer and succeeds', async () => {
    standIn.failNext({ status: 503 }, { count: 2 });
    await expect(partner().listPackages({ location: 'FR' })).resolves.not.toHaveLength(0);
    expect(standIn.requests.map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('retries a dropped connection', async () => {
    standIn.failNext({ drop: true });
    await expect(partner().listPackages({ location: 'FR' })).resolves.not.toHaveLength(0);
    expect(standIn.requests.map((r) => r.status)).toEqual([0, 200]);
  });

  it("retries the partner's rate-limit and busy answers", async () => {
    standIn.failNext({ status: 429, errorCode: '900001', errorMsg: 'System busy' });
    standIn.failNext({ errorCode: '900001', errorMsg: 'System busy' });
    await expect(partner().listPackages({ location: 'FR' })).resolves.not.toHaveLength(0);
    expect(standIn.requests.map((r) => [r.status, r.errorCode])).toEqual([
      [429, '900001'],
      [200, '900001'],
      [200, null],
    ]);
  });

  it('gives up after the configured retries with an error naming the call and the last answer', async () => {
    standIn.failNext({ status: 500 }, { count: 5 });
    const error = await partnerFailure(partner({ retries: 2 }).listPackages());
    expect(error.message).toBe('eSIM Access package/list failed after 3 attempts: HTTP 500 000001 Server error');
    expect(error).toMatchObject({ retryable: true, attempts: 3 });
    expect(standIn.requests).toHaveLength(3);
  });

  it('does not retry a business error, and says which one', async () => {
    standIn.failNext({ errorCode: '310241', errorMsg: 'packageCode does not exist' });
    const error = await partnerFailure(partner().listPackages({ packageCode: 'NOPE' }));
    expect(error.message).toBe('eSIM Access package/list failed: 310241 packageCode does not exist');
    expect(standIn.requests).toHaveLength(1);
  });

  it('names the call when the partner cannot be reached at all', async () => {
    await standIn.close();
    const error = await partnerFailure(partner({ retries: 1 }).listPackages());
    // Its connection refused: nothing reached it, which the delivery step may act on (a failover at once).
    expect(error.message).toMatch(/^eSIM Access package\/list failed after 2 attempts: not sent \(.*ECONNREFUSED/);
    expect(error.notSent).toBe(true);
  });
});

describe('rate limit', () => {
  it('keeps to 8 requests a second: 20 calls span at least 2 s of the partner clock, none refused', async () => {
    const client = partner();
    await Promise.all(Array.from({ length: 20 }, () => client.listPackages({ location: 'IT' })));

    const arrivals = standIn.requests.map((r) => r.receivedAt);
    expect(standIn.requests.every((r) => r.status === 200)).toBe(true);
    expect(arrivals).toHaveLength(20);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(2000);
    // No 9 requests within any second.
    for (let i = 8; i < arrivals.length; i++) expect(arrivals[i]! - arrivals[i - 8]!).toBeGreaterThanOrEqual(1000);
  });

  it('is shared by every adapter of the same account', async () => {
    await Promise.all(Array.from({ length: 9 }, () => partner().listPackages({ location: 'IT' })));
    expect(standIn.requests.every((r) => r.status === 200)).toBe(true);
    expect(standIn.requests[8]!.receivedAt - standIn.requests[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
  });
});

/** package/list's answer for one plan, with the fields every package has. */
const NORTH_AMERICA_1GB: EsimAccessPackage = {
  packageCode: 'CKH491',
  slug: 'NA-3_1_7',
  name: 'North America 1GB 7Days',
  price: 57000,
  currencyCode: 'USD',
  volume: 1073741824,
  dataType: 1,
  duration: 7,
  durationUnit: 'DAY',
  location: 'US,CA,MX',
  locationNetworkList: [{ locationCode: 'US' }, { locationCode: 'MX' }, { locationCode: 'CA' }],
};

describe('mapEsimAccessPackage', () => {
  const raw = NORTH_AMERICA_1GB;

  it('maps the volume from bytes, the duration and its unit, the countries and the price unit', () => {
    expect(mapEsimAccessPackage(raw)).toEqual({
      partnerCode: 'CKH491',
      slug: 'NA-3_1_7',
      name: 'North America 1GB 7Days',
      countries: ['CA', 'MX', 'US'],
      dataAmount: { value: 1, unit: 'GB' },
      dataBytes: 1073741824,
      validity: 7,
      validityUnit: 'day',
      wholesaleUsdE4: 57000,
      topUp: true,
    });
    expect(mapEsimAccessPackage({ ...raw, volume: 500 * 2 ** 20 }).dataAmount).toEqual({ value: 500, unit: 'MB' });
    expect(mapEsimAccessPackage({ ...raw, volume: 1.5 * 2 ** 30 }).dataAmount).toEqual({ value: 1.5, unit: 'GB' });
    expect(mapEsimAccessPackage({ ...raw, duration: 1, durationUnit: 'MONTH' })).toMatchObject({ validity: 1, validityUnit: 'month' });
    expect(mapEsimAccessPackage({ ...raw, locationNetworkList: [] }).countries).toEqual(['CA', 'MX', 'US']);
  });

  it('reads supportTopUpType: 2 can be topped up, 1 cannot; without it, its top-up list will say', () => {
    expect(mapEsimAccessPackage({ ...raw, supportTopUpType: 2 }).topUp).toBe(true);
    expect(mapEsimAccessPackage({ ...raw, supportTopUpType: 1 }).topUp).toBe(false);
    expect(mapEsimAccessPackage({ ...raw, supportTopUpType: 0 }).topUp).toBe(false);
    expect(mapEsimAccessPackage(raw).topUp).toBe(true);
  });

  it('refuses what it cannot represent', () => {
    expect(() => mapEsimAccessPackage({ ...raw, durationUnit: 'YEAR' })).toThrow("package CKH491: unknown durationUnit 'YEAR'");
    expect(() => mapEsimAccessPackage({ ...raw, currencyCode: 'EUR' })).toThrow('price in EUR, not USD');
  });
});

describe('mapEsimAccessCataloguePackage: the plan facts', () => {
  // The field names and values of package/list as the docs' field table and a live call show them
  // (tests/fixtures/esim-access/package-list-facts.json); the daily values as public integrations read them.
  const raw: EsimAccessPackage = {
    ...NORTH_AMERICA_1GB,
    smsStatus: 1,
    unusedValidTime: 180,
    activeType: 2,
    speed: '3G/4G/5G',
    ipExport: 'US',
    supportTopUpType: 2,
    fupPolicy: '',
    locationNetworkList: [
      { locationName: 'United States', locationCode: 'US', operatorList: [{ operatorName: 'AT&T', networkType: '5G' }] },
      { locationName: 'Mexico', locationCode: 'MX', operatorList: [{ operatorName: 'Telcel', networkType: '4G' }] },
      {
        locationName: 'Canada',
        locationCode: 'CA',
        operatorList: [
          { operatorName: 'Rogers', networkType: '4G/5G' },
          { operatorName: 'Bell', networkType: 'LTE' },
        ],
      },
    ],
  };
  const facts = (edit: Partial<EsimAccessPackage>) => mapEsimAccessCataloguePackage({ ...raw, ...edit }).facts;

  it('maps every field of a fixed-data plan', () => {
    expect(mapEsimAccessCataloguePackage(raw)).toMatchObject({ partnerCode: 'CKH491', countries: ['CA', 'MX', 'US'], topUp: true });
    expect(facts({})).toEqual({
      // In the order of the covered countries; each operator's best generation ('4G/5G' is 5G, 'LTE' 4G).
      networks: [
        {
          country: 'CA',
          operators: [
            { name: 'Rogers', networkType: '5G' },
            { name: 'Bell', networkType: '4G' },
          ],
        },
        { country: 'MX', operators: [{ name: 'Telcel', networkType: '4G' }] },
        { country: 'US', operators: [{ name: 'AT&T', networkType: '5G' }] },
      ],
      data: { kind: 'total' },
      validityStarts: 'first-connection',
      installWithinDays: 180,
      topUp: true,
      hotspot: null,
      sms: true,
      trafficExit: 'US',
    });
  });

  it('reads dataType 2 and 4 with their fupPolicy speed, and 3 as cut off after the daily volume', () => {
    expect(facts({ dataType: 2, fupPolicy: '512Kbps' }).data).toEqual({ kind: 'daily', after: { slowedToKbps: 512 } });
    expect(facts({ dataType: 3, fupPolicy: '' }).data).toEqual({ kind: 'daily', after: 'cut' });
    expect(facts({ dataType: 4, fupPolicy: '1Mbps' }).data).toEqual({ kind: 'unlimited', after: { slowedToKbps: 1000 } });
    expect(facts({ dataType: 4, fupPolicy: '1 Mbps' }).data).toEqual({ kind: 'unlimited', after: { slowedToKbps: 1000 } });
    // The daily or fair-use volume stays the package's volume.
    expect(mapEsimAccessCataloguePackage({ ...raw, dataType: 2, fupPolicy: '512Kbps' }).dataAmount).toEqual({ value: 1, unit: 'GB' });
  });

  it('reads activeType, unusedValidTime, smsStatus, supportTopUpType and ipExport', () => {
    expect(facts({ activeType: 1 }).validityStarts).toBe('install');
    expect(facts({ unusedValidTime: 30 }).installWithinDays).toBe(30);
    expect(facts({ smsStatus: 0 }).sms).toBe(false);
    expect(facts({ supportTopUpType: 1 }).topUp).toBe(false);
    expect(facts({ ipExport: 'NL/FR' }).trafficExit).toBe('NL');
    expect(facts({ ipExport: 'UK' }).trafficExit).toBe('GB');
    expect(facts({ ipExport: '' }).trafficExit).toBeNull();
  });

  it("names a network's country by locationName when it has no locationCode (the docs' example), and uses speed when an operator names no type", () => {
    const documented = facts({
      location: 'SI',
      speed: '3G/4G',
      locationNetworkList: [{ locationName: 'Slovenia', operatorList: [{ operatorName: 'A1', networkType: '' }] }],
    });
    expect(documented.networks).toEqual([{ country: 'SI', operators: [{ name: 'A1', networkType: '4G' }] }]);
  });

  it('refuses a plan it cannot state truthfully, naming the package and the fault', () => {
    expect(() => facts({ dataType: 5 })).toThrow('package CKH491: unknown dataType 5');
    expect(() => facts({ dataType: 2, fupPolicy: '' })).toThrow('package CKH491: dataType 2 without a fupPolicy speed');
    expect(() => facts({ locationNetworkList: [] })).toThrow('package CKH491: no operators listed for CA, MX, US');
    expect(() => facts({ locationNetworkList: raw.locationNetworkList!.slice(0, 2) })).toThrow('no operators listed for CA');
    expect(() => facts({ activeType: 3 })).toThrow('package CKH491: unknown activeType 3');
    expect(() => facts({ unusedValidTime: undefined })).toThrow('package CKH491: no unusedValidTime');
  });
});

describe('configuration', () => {
  it('comes from the environment, with the production base URL by default', () => {
    expect(esimAccessConfigFromEnv({ ESIM_ACCESS_CODE: 'code', ESIM_ACCESS_SECRET: 'secret' })).toEqual({
      accessCode: 'code',
      secretKey: 'secret',
      baseUrl: 'https://api.esimaccess.com',
    });
    expect(
      esimAccessConfigFromEnv({ ESIM_ACCESS_CODE: 'c', ESIM_ACCESS_SECRET: 's', ESIM_ACCESS_BASE_URL: 'http://127.0.0.1:9' }).baseUrl,
    ).toBe('http://127.0.0.1:9');
  });

  it('names a missing variable', () => {
    expect(() => esimAccessConfigFromEnv({ ESIM_ACCESS_CODE: 'code' })).toThrow(/^ESIM_ACCESS_SECRET is not set/);
  });
});

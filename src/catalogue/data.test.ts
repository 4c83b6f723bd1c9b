import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Snapshot, describeIssues } from './schema.ts';
import { SNAPSHOT_FILE, embeddedSnapshot, parseSnapshot, readSnapshot } from './snapshot.ts';
import { LOCALE_CODES } from '../i18n/locales.ts';

const snapshot = embeddedSnapshot();

describe('the committed catalogue snapshot', () => {
  it('covers more than 200 inhabited countries, as the marketing claims, and no uninhabited one', () => {
    expect(snapshot.countries.length).toBeGreaterThan(200);
    const codes = snapshot.countries.map((c) => c.code);
    for (const uninhabited of ['AQ', 'BV', 'HM', 'TF', 'GS', 'UM']) expect(codes).not.toContain(uninhabited);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('names every country in all 12 languages, in that language', () => {
    for (const country of snapshot.countries) for (const l of LOCALE_CODES) expect(country.names[l], `${country.code} ${l}`).toBeTruthy();
    const japan = snapshot.countries.find((c) => c.code === 'JP')!.names;
    expect([japan.en, japan.ja, japan.ar, japan.ru]).toEqual(['Japan', '日本', 'اليابان', 'Япония']);
    // Short names where the long ones read like legal titles (DESIGN 4).
    expect(snapshot.countries.find((c) => c.code === 'HK')!.names.en).toBe('Hong Kong');
  });

  it('gives every destination realistic plans, from 1 GB for 7 days up to 20 GB for 30 days', () => {
    for (const destination of [...snapshot.countries, ...snapshot.regions]) {
      const plans = snapshot.packages.filter((p) => p.destination === destination.code);
      expect(plans.length, destination.code).toBeGreaterThanOrEqual(3);
      expect(plans[0]).toMatchObject({ metadata: { dataAmount: { value: 1, unit: 'GB' } }, validity: 7, validityUnit: 'day' });
    }
    const german = snapshot.packages.filter((p) => p.destination === 'DE');
    expect(german.some((p) => p.metadata.dataAmount.value === 20 && p.validity === 30)).toBe(true);
  });

  it('regional plans cover exactly their region', () => {
    for (const region of snapshot.regions) {
      for (const plan of snapshot.packages.filter((p) => p.destination === region.code)) {
        expect(plan.supportedCountries).toEqual(region.supportedCountries);
      }
    }
    expect(snapshot.regions.find((r) => r.code === 'global')!.supportedCountries.length).toBe(snapshot.countries.length);
  });

  it('a broken snapshot is refused with a message naming the record and the field', () => {
    const broken = structuredClone(snapshot) as { countries: Array<Record<string, unknown>> };
    broken.countries[3] = { ...broken.countries[3], code: 'germany' };
    (broken.countries[7]!.names as Record<string, string>).de = '';
    expect(() => parseSnapshot(broken, 'broken.json')).toThrow(/broken\.json is invalid/);
    const result = Snapshot.safeParse(broken);
    expect(result.success).toBe(false);
    const message = describeIssues(result.error!, broken);
    expect(message).toContain('countries[3].code');
    expect(message).toContain('two-letter country code');
    expect(message).toContain('countries[7].names.de');
  });
});

describe('the catalogue invariants', () => {
  const at = (code: string) => snapshot.countries.findIndex((c) => c.code === code);
  const packageOf = (destination: string) => snapshot.packages.findIndex((p) => p.destination === destination);

  it.each<[string, (s: Snapshot) => void, RegExp]>([
    [
      'a repeated country code',
      (s) => s.countries.push(s.countries[at('DE')]!),
      new RegExp(`countries\\[${snapshot.countries.length}\\]\\.code \\(code DE\\): DE repeats \\[${at('DE')}\\]`),
    ],
    [
      'a repeated region code',
      (s) => s.regions.push(s.regions[0]!),
      new RegExp(
        `regions\\[${snapshot.regions.length}\\]\\.code \\(code ${snapshot.regions[0]!.code}\\): ${snapshot.regions[0]!.code} repeats \\[0\\]`,
      ),
    ],
    [
      'a repeated package id',
      (s) => (s.packages[packageOf('FR')]!.id = s.packages[packageOf('DE')]!.id),
      new RegExp(`packages\\[${packageOf('FR')}\\]\\.id \\(id de-1gb-7d\\): de-1gb-7d repeats \\[${packageOf('DE')}\\]`),
    ],
    [
      'a package for no destination',
      (s) => (s.packages[packageOf('DE')]!.destination = 'atlantis'),
      new RegExp(`packages\\[${packageOf('DE')}\\]\\.destination \\(id de-1gb-7d\\): atlantis is neither a country nor a region`),
    ],
    [
      "a country's package not covering it",
      (s) => (s.packages[packageOf('DE')]!.supportedCountries = ['FR']),
      /packages\[\d+\]\.supportedCountries \(id de-1gb-7d\): does not cover its destination DE/,
    ],
    [
      'a package listing an unknown country',
      (s) => s.packages[packageOf('europe')]!.supportedCountries.push('ZZ'),
      /packages\[\d+\]\.supportedCountries \(id europe-1gb-7d\): lists unknown countries ZZ/,
    ],
    [
      'a region listing an unknown country',
      (s) => s.regions.find((r) => r.code === 'europe')!.supportedCountries.push('ZZ', 'QQ'),
      /regions\[\d+\]\.supportedCountries \(code europe\): lists unknown countries ZZ, QQ/,
    ],
    [
      'a destination without packages',
      (s) => (s.packages = s.packages.filter((p) => p.destination !== 'FR')),
      new RegExp(`countries\\[${at('FR')}\\] \\(code FR\\): FR has no packages`),
    ],
    [
      'a missing flag file',
      (s) => (s.countries[at('JP')]!.flag = '/flags/JP-missing.svg'),
      new RegExp(`countries\\[${at('JP')}\\]\\.flag \\(code JP\\): public/flags/JP-missing\\.svg does not exist`),
    ],
    [
      'a plan without networks',
      (s) => (s.packages[packageOf('DE')]!.facts.networks = []),
      /packages\[\d+\]\.facts\.networks \(id de-1gb-7d\): must list the networks of at least one country\n.*lists no operators for DE/,
    ],
    [
      'a covered country without operators',
      (s) => (s.packages[packageOf('DE')]!.facts.networks[0]!.operators = []),
      /packages\[\d+\]\.facts\.networks\[0\]\.operators \(id de-1gb-7d\): must name at least one operator/,
    ],
    [
      'networks of a country the plan does not cover',
      (s) => s.packages[packageOf('DE')]!.facts.networks.push({ country: 'FR', operators: [{ name: 'Orange', networkType: '5G' }] }),
      /packages\[\d+\]\.facts\.networks \(id de-1gb-7d\): lists countries the plan does not cover: FR/,
    ],
    [
      'an unknown data kind',
      (s) => (s.packages[packageOf('DE')]!.facts.data = { kind: 'weekly' } as never),
      /packages\[\d+\]\.facts\.data(\.kind)? \(id de-1gb-7d\): must be a data kind: 'total', 'daily' or 'unlimited'/,
    ],
    [
      'an unlimited plan not saying its speed after the fair use',
      (s) => (s.packages[packageOf('DE')]!.facts.data = { kind: 'unlimited', after: 'cut' } as never),
      /packages\[\d+\]\.facts\.data\.after \(id de-1gb-7d\): /,
    ],
    [
      'an unknown network type',
      (s) => (s.packages[packageOf('DE')]!.facts.networks[0]!.operators[0]!.networkType = '6G' as never),
      /facts\.networks\[0\]\.operators\[0\]\.networkType \(id de-1gb-7d\): must be one of '2G', '3G', '4G', '5G'/,
    ],
    [
      'a missing region flag',
      (s) => (s.regions.find((r) => r.code === 'africa')!.flag = '/flags/region-africa.svg'),
      /regions\[\d+\]\.flag \(code africa\): public\/flags\/region-africa\.svg does not exist/,
    ],
  ])('refuses %s, naming the record', (_, corrupt, message) => {
    const broken = structuredClone(snapshot);
    corrupt(broken);
    expect(() => parseSnapshot(broken, 'broken.json')).toThrow(message);
  });

  it('refuses a snapshot file that is not JSON, naming the file', () => {
    const root = mkdtempSync(join(tmpdir(), 'esim-snapshot-'));
    try {
      mkdirSync(dirname(join(root, SNAPSHOT_FILE)), { recursive: true });
      writeFileSync(join(root, SNAPSHOT_FILE), '{"countries": [{"code": "DE",');
      expect(() => readSnapshot(SNAPSHOT_FILE, root)).toThrow(/Catalogue snapshot src\/catalogue\/snapshot\.json cannot be read: .*JSON/);
      expect(() => readSnapshot('src/catalogue/absent.json', root)).toThrow(/src\/catalogue\/absent\.json cannot be read: ENOENT/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

import { describe, expect, it } from 'vitest';
import { Snapshot, describeIssues } from '../../src/catalogue/schema.ts';
import { embeddedSnapshot, parseSnapshot } from '../../src/catalogue/snapshot.ts';
import { LOCALE_CODES } from '../../src/i18n/locales.ts';

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
    const message = describeIssues(result.error!, broken.countries);
    expect(message).toContain('countries[3].code');
    expect(message).toContain('two-letter country code');
    expect(message).toContain('countries[7].names.de');
  });
});

import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, REGIONS } from '../../scripts/lib/geography.ts';
import { buildTopUpCatalogue, buildWholesaleCatalogue, locationOf, TOP_UP_TYPE } from './catalogue.ts';

const catalogue = buildWholesaleCatalogue();
const usd = (price: number) => price / 10_000;

describe('the stand-in wholesale catalogue', () => {
  it('sells a plan ladder in every one of our countries and in each region, covering exactly its countries', () => {
    const single = catalogue.filter((p) => p.locationNetworkList.length === 1);
    expect(new Set(single.map((p) => p.location))).toEqual(new Set(COUNTRY_CODES));
    for (const code of COUNTRY_CODES) {
      const durations = single.filter((p) => p.location === code).map((p) => `${p.volume / 2 ** 30}GB/${p.duration}`);
      expect(durations, code).toEqual(expect.arrayContaining(['1GB/7', '3GB/15', '5GB/30']));
    }
    // Large markets get more: Germany a 20 GB and a 50 GB plan, Tuvalu neither.
    expect(single.filter((p) => p.location === 'DE').map((p) => p.slug)).toEqual(expect.arrayContaining(['DE_20_30', 'DE_50_30']));
    expect(single.filter((p) => p.location === 'TV')).toHaveLength(3);
    for (const countries of Object.values(REGIONS)) {
      expect(catalogue.filter((p) => p.location === countries.join(',')).length).toBeGreaterThanOrEqual(4);
    }
    expect(catalogue.find((p) => p.slug.startsWith('EU-') && p.location.split(',').includes('DE'))).toBeDefined();
  });

  it('prices 1 GB for 7 days in a country between USD 0.70 and 2.50, in whole cents', () => {
    const oneGbWeek = catalogue.filter(
      (p) => p.locationNetworkList.length === 1 && p.dataType === 1 && p.volume === 2 ** 30 && p.duration === 7,
    );
    expect(oneGbWeek.length).toBeGreaterThan(200);
    for (const p of oneGbWeek) expect(usd(p.price), p.slug).toBeGreaterThanOrEqual(0.7);
    for (const p of oneGbWeek) expect(usd(p.price), p.slug).toBeLessThanOrEqual(2.5);
    for (const p of catalogue) expect(p.price % 100, p.slug).toBe(0);
  });

  it('charges more for more data in one place, but less per gigabyte', () => {
    const germany = catalogue.filter((p) => p.location === 'DE' && p.duration === 30).sort((a, b) => a.volume - b.volume);
    expect(germany.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < germany.length; i++) {
      const [smaller, larger] = [germany[i - 1]!, germany[i]!];
      expect(larger.price).toBeGreaterThan(smaller.price);
      expect(larger.price / larger.volume).toBeLessThan(smaller.price / smaller.volume);
    }
  });

  it('is the same on every run, with unique package codes', () => {
    expect(buildWholesaleCatalogue()).toEqual(catalogue);
    expect(new Set(catalogue.map((p) => p.packageCode)).size).toBe(catalogue.length);
  });

  it('lets most packages be topped up and a few not, by location, with top-ups of their own', () => {
    const locations = Map.groupBy(catalogue, locationOf);
    const without = [...locations].filter(([, plans]) => plans.every((p) => p.supportTopUpType === TOP_UP_TYPE.none)).map(([l]) => l);
    const mixed = [...locations].filter(([, plans]) => new Set(plans.map((p) => p.supportTopUpType)).size > 1);
    expect(mixed).toEqual([]);
    expect(without.length).toBeGreaterThan(10);
    expect(without.length / locations.size).toBeLessThan(0.25);
    expect(without).not.toContain('DE');

    const topUps = buildTopUpCatalogue(catalogue);
    expect(new Set(topUps.keys())).toEqual(new Set([...locations.keys()].filter((l) => !without.includes(l))));
    const germany = topUps.get('DE')!;
    expect(germany.map((p) => `${p.volume / 2 ** 30}GB/${p.duration}`)).toEqual(['1GB/7', '2GB/15', '5GB/30', '10GB/30']);
    const codes = new Set(catalogue.map((p) => p.packageCode));
    for (const p of [...topUps.values()].flat()) {
      expect(p.packageCode, p.slug).toMatch(/^TOPUP_/);
      expect(codes.has(p.packageCode.replace(/^TOPUP_/, '')), p.slug).toBe(false);
      codes.add(p.packageCode);
    }
    // Priced on their own: less than the plan of the same data and days.
    const plan = catalogue.find((p) => p.slug === 'DE_1_7')!;
    expect(germany[0]!.price).toBeLessThan(plan.price);
    expect(germany[0]!.price).toBeGreaterThan(0);
  });

  it('names the real operators of the big markets and a plausible one elsewhere, with their network types', () => {
    const operators = (slug: string) =>
      catalogue
        .find((p) => p.slug === slug)!
        .locationNetworkList.flatMap((l) => l.operatorList.map((o) => `${o.operatorName} ${o.networkType}`));
    expect(operators('DE_1_7')).toEqual(['Telekom 5G', 'Vodafone 5G', 'O2 4G']);
    expect(operators('FR_1_7')).toEqual(['Orange 5G', 'SFR 5G', 'Bouygues Telecom 4G']);
    expect(operators('US_1_7')).toEqual(['AT&T 5G', 'T-Mobile 5G', 'Verizon 4G']);
    expect(operators('JP_1_7')).toEqual(['SoftBank 5G', 'KDDI (au) 5G', 'NTT Docomo 4G']);
    expect(operators('GB_1_7')).toEqual(['EE 5G', 'Vodafone 5G', 'O2 4G', 'Three 4G']);
    expect(operators('AU_1_7')[0]).toBe('Telstra 5G');
    expect(operators('TV_1_7')).toEqual([expect.stringMatching(/^Tuvalu Telecom [34]G$/)]);
    // Every package lists operators in every country it covers, with a generation the adapter reads.
    for (const p of catalogue) {
      expect(p.locationNetworkList.map((l) => l.locationCode).join(','), p.slug).toBe(p.location);
      for (const l of p.locationNetworkList) {
        expect(l.operatorList.length, `${p.slug} ${l.locationCode}`).toBeGreaterThan(0);
        for (const o of l.operatorList) expect(o.networkType).toMatch(/^[2-5]G$/);
      }
    }
  });

  it('sells daily plans (slowed or cut after the day’s volume) and unlimited ones with fair use in large markets', () => {
    const kinds = (location: string) =>
      catalogue
        .filter((p) => locationOf(p) === location && p.dataType !== 1)
        .map((p) => `${p.dataType} ${p.volume / 2 ** 30}GB ${p.duration}d ${p.fupPolicy}`);
    expect(kinds('DE')).toEqual(['2 1GB 7d 512Kbps', '3 2GB 15d ', '4 3GB 7d 1Mbps']);
    expect(kinds('TV')).toEqual([]);
    expect(kinds(locationOf(catalogue.find((p) => p.slug.startsWith('EU-'))!))).toEqual(['2 1GB 7d 512Kbps', '4 5GB 30d 1Mbps']);
    for (const p of catalogue) {
      expect([1, 2, 3, 4], p.slug).toContain(p.dataType);
      // A slowed plan says to what; a fixed or cut one has nothing to say.
      expect(p.fupPolicy !== '', p.slug).toBe(p.dataType === 2 || p.dataType === 4);
    }
  });

  it('mixes activation at install and at first connection, install windows of 30 and 180 days, SMS in a few', () => {
    const count = (test: (p: (typeof catalogue)[number]) => boolean) => catalogue.filter(test).length;
    expect(count((p) => p.activeType === 1)).toBeGreaterThan(catalogue.length * 0.1);
    expect(count((p) => p.activeType === 2)).toBeGreaterThan(catalogue.length * 0.5);
    expect(new Set(catalogue.map((p) => p.unusedValidTime))).toEqual(new Set([30, 180]));
    expect(count((p) => p.smsStatus === 1)).toBeGreaterThan(0);
    expect(count((p) => p.smsStatus === 1 && p.locationNetworkList.length > 1)).toBe(0);
  });

  it('breaks out local plans in their country and regional ones at a hub, sometimes outside the region', () => {
    for (const p of catalogue.filter((p) => p.locationNetworkList.length === 1)) expect(p.ipExport, p.slug).toBe(p.location);
    const europe = catalogue.find((p) => p.slug.startsWith('EU-'))!;
    expect(europe.ipExport).toBe('NL');
    const asia = catalogue.find((p) => p.slug.startsWith('AS-'))!;
    expect(asia.ipExport).toBe('HK');
    // Hotspot use is not a field of package/list: the stand-in states nothing about it either.
    expect(Object.keys(europe).some((key) => /hotspot|tether/i.test(key))).toBe(false);
  });
});

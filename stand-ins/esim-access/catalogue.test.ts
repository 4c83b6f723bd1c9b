import { describe, expect, it } from 'vitest';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { buildWholesaleCatalogue } from './catalogue.ts';

const catalogue = buildWholesaleCatalogue();
const usd = (price: number) => price / 10_000;

describe('the stand-in wholesale catalogue', () => {
  it('sells every plan of the snapshot, in every country and region it lists', () => {
    expect(catalogue).toHaveLength(snapshot.packages.length);
    const sold = new Set(catalogue.map((p) => `${p.location}|${p.volume}|${p.duration}`));
    for (const pkg of snapshot.packages) {
      const { value, unit } = pkg.metadata.dataAmount;
      const key = `${[...pkg.supportedCountries].sort().join(',')}|${value * (unit === 'GB' ? 2 ** 30 : 2 ** 20)}|${pkg.validity}`;
      expect(sold.has(key), pkg.id).toBe(true);
    }
    const countries = new Set(catalogue.filter((p) => p.locationNetworkList.length === 1).map((p) => p.location));
    expect(countries.size).toBe(snapshot.countries.length);
    expect(catalogue.find((p) => p.slug.startsWith('EU-') && p.locationNetworkList.some((l) => l.locationCode === 'DE'))).toBeDefined();
  });

  it('prices 1 GB for 7 days in a country between USD 0.70 and 2.50, in whole cents', () => {
    const oneGbWeek = catalogue.filter((p) => p.locationNetworkList.length === 1 && p.volume === 2 ** 30 && p.duration === 7);
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
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RATE_AGE_DAYS } from '../../src/config/currencies.ts';
import { ECB_DAILY_PATH, ECB_FIXTURE_FILE, lastWeekday, startEcbStandIn } from '../../stand-ins/ecb/server.ts';
import { parseEcbRates, readEcbDailyFile, readEcbRates } from './ecb-rates.ts';

// The ECB's daily euro reference rates (issue 34): the fixture in the ECB's exact format, its
// stand-in over real HTTP, and each way a source is refused.
const FIXTURE = readFileSync(ECB_FIXTURE_FILE, 'utf8');
const FIXTURE_DAY = '2026-11-27';
const OURS = { USD: 1.1628, JPY: 181.2, GBP: 0.878, CHF: 0.931, PLN: 4.235, CAD: 1.625, AUD: 1.785, BRL: 6.21 };
/** A day the fixture's rates are fresh on. */
const FRESH = new Date(`${FIXTURE_DAY}T18:00:00Z`);
const days = (n: number) => new Date(Date.parse(`${FIXTURE_DAY}T00:00:00Z`) + n * 86_400_000);

const folder = mkdtempSync(join(tmpdir(), 'ecb-rates-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
function file(name: string, xml: string): string {
  const path = join(folder, name);
  writeFileSync(path, xml);
  return path;
}

describe('parseEcbRates', () => {
  it("reads the fixture's day and our listed currencies' rates, no others", () => {
    expect(parseEcbRates(FIXTURE, 'fixture')).toEqual({ source: 'fixture', date: FIXTURE_DAY, perEuro: OURS });
    // The fixture is the ECB's usual list: 29 currencies, no BGN (Bulgaria uses the euro since 2026).
    const { rates } = readEcbDailyFile(FIXTURE, 'fixture');
    expect(rates).toHaveLength(29);
    expect(rates.map(([currency]) => currency)).not.toContain('BGN');
  });

  it('resolves the namespaces, not the prefixes: another prefix for GESMES reads the same, another namespace does not', () => {
    const renamed = FIXTURE.replaceAll('gesmes:', 'g:').replace('xmlns:gesmes=', 'xmlns:g=');
    expect(renamed).toContain('<g:Envelope xmlns:g="http://www.gesmes.org/xml/2002-08-01"');
    expect(parseEcbRates(renamed, 'renamed').perEuro).toEqual(OURS);
    expect(() => parseEcbRates(FIXTURE.replace('http://www.gesmes.org/xml/2002-08-01', 'urn:example:other'), 'other')).toThrow(
      /ECB rates from other: not the ECB's format: the root is <gesmes:Envelope> in namespace urn:example:other/,
    );
    // Without the default namespace the Cubes are in none: not the ECB's rates.
    expect(() => parseEcbRates(FIXTURE.replace(/ xmlns="[^"]+"/, ''), 'bare')).toThrow(/ECB rates from bare: no date and no rates/);
  });

  it('refuses a file missing a listed currency, naming each missing one', () => {
    const noGbp = FIXTURE.replace(/.*'GBP'.*\n/, '');
    expect(() => parseEcbRates(noGbp, 'no-gbp.xml')).toThrow(/^ECB rates from no-gbp\.xml of 2026-11-27: no rate for GBP \(/);
    expect(() => parseEcbRates(noGbp.replace(/.*'BRL'.*\n/, ''), 'two')).toThrow(/no rate for GBP, BRL \(/);
    // A currency we do not list may be missing.
    expect(parseEcbRates(FIXTURE.replace(/.*'ISK'.*\n/, ''), 'no-isk').perEuro).toEqual(OURS);
  });

  it('refuses what is not the ECB format: HTML, not XML at all, nothing', () => {
    expect(() => parseEcbRates('<html><body><h1>Maintenance</h1></body></html>', 'page')).toThrow(
      /^ECB rates from page: not the ECB's format: the root is <html> in no namespace/,
    );
    expect(() => parseEcbRates('<!DOCTYPE html><html><head><meta charset="utf-8"></head></html>', 'html5')).toThrow(
      /^ECB rates from html5: not XML \(line 1, column \d+: /,
    );
    expect(() => parseEcbRates('Service Unavailable', 'text')).toThrow(/^ECB rates from text: not XML \(line 1, column 1: /);
    expect(() => parseEcbRates('', 'empty')).toThrow(/^ECB rates from empty: not XML \(empty\)/);
  });

  it('refuses a rate that is not a positive number, naming the currency and the rate', () => {
    const withRate = (currency: string, rate: string) =>
      FIXTURE.replace(new RegExp(`currency='${currency}' rate='[^']*'`), `currency='${currency}' rate='${rate}'`);
    expect(() => parseEcbRates(withRate('USD', '0'), 'zero')).toThrow(
      /ECB rates from zero of 2026-11-27: the rate of USD is '0', not a positive number/,
    );
    expect(() => parseEcbRates(withRate('PLN', '-4.2350'), 'minus')).toThrow(/the rate of PLN is '-4\.2350', not a positive number/);
    expect(() => parseEcbRates(withRate('JPY', 'n/a'), 'text')).toThrow(/the rate of JPY is 'n\/a'/);
    expect(() => parseEcbRates(withRate('ZAR', ''), 'other')).toThrow(/the rate of ZAR is ''/);
  });

  it('refuses a file without a date, or with one that is not a day', () => {
    expect(() => parseEcbRates(FIXTURE.replace(` time='${FIXTURE_DAY}'`, ''), 'undated')).toThrow(
      /^ECB rates from undated: no date: the day's Cube has no time/,
    );
    expect(() => parseEcbRates(FIXTURE.replace(FIXTURE_DAY, '2026-02-30'), 'bad')).toThrow(/the date '2026-02-30' is not a day/);
    expect(() => parseEcbRates(FIXTURE.replace(FIXTURE_DAY, '27.11.2026'), 'bad')).toThrow(/the date '27\.11\.2026' is not a day/);
  });
});

describe('readEcbRates', () => {
  it(`reads a file, and refuses one older than MAX_RATE_AGE_DAYS (${MAX_RATE_AGE_DAYS}), naming its date and age`, async () => {
    expect(await readEcbRates(ECB_FIXTURE_FILE, FRESH)).toEqual({ source: ECB_FIXTURE_FILE, date: FIXTURE_DAY, perEuro: OURS });
    await expect(readEcbRates(ECB_FIXTURE_FILE, days(MAX_RATE_AGE_DAYS))).resolves.toMatchObject({ date: FIXTURE_DAY });
    const old = file('old.xml', FIXTURE);
    await expect(readEcbRates(old, days(MAX_RATE_AGE_DAYS + 1))).rejects.toThrow(
      `ECB rates from ${old}: the exchange rates are of ${FIXTURE_DAY}, ${MAX_RATE_AGE_DAYS + 1} days old (at most ${MAX_RATE_AGE_DAYS})`,
    );
    await expect(readEcbRates(join(folder, 'none.xml'), FRESH)).rejects.toThrow(/none\.xml: cannot read the file \(ENOENT/);
  });

  it("reads the stand-in's answer over HTTP, dated as asked, or the last weekday by default", async () => {
    const dated = await startEcbStandIn({ date: FIXTURE_DAY });
    try {
      expect(dated.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${ECB_DAILY_PATH}$`));
      expect(await readEcbRates(dated.url, FRESH)).toEqual({ source: dated.url, date: FIXTURE_DAY, perEuro: OURS });
      // Dated as the fixture, it serves the fixture byte for byte: the ECB's exact format.
      const response = await fetch(dated.url);
      expect(response.headers.get('content-type')).toBe('text/xml');
      expect(await response.text()).toBe(FIXTURE);
      const elsewhere = await fetch(new URL('/stats/eurofxref/eurofxref-hist.xml', dated.url));
      expect(elsewhere.status).toBe(404);
      await elsewhere.body?.cancel();
      await expect(readEcbRates(new URL('/nothing', dated.url).href, FRESH)).rejects.toThrow(/: HTTP 404 Not Found$/);
    } finally {
      await dated.close();
    }

    const live = await startEcbStandIn();
    try {
      const today = lastWeekday();
      expect(new Date(`${today}T00:00:00Z`).getUTCDay()).not.toBe(0);
      expect(new Date(`${today}T00:00:00Z`).getUTCDay()).not.toBe(6);
      expect(await readEcbRates(live.url)).toMatchObject({ date: today, perEuro: OURS });
    } finally {
      await live.close();
    }
  });

  it('serves the rates it is given, and the reader refuses them as it would the ECB’s', async () => {
    const standIn = await startEcbStandIn({
      date: FIXTURE_DAY,
      rates: { USD: 1.2, JPY: 180, CHF: 0.94, PLN: 4.3, CAD: 1.6, AUD: 1.8, BRL: 6 },
    });
    try {
      await expect(readEcbRates(standIn.url, FRESH)).rejects.toThrow(`ECB rates from ${standIn.url} of ${FIXTURE_DAY}: no rate for GBP (`);
    } finally {
      await standIn.close();
    }
    const negative = await startEcbStandIn({ date: FIXTURE_DAY, rates: { ...OURS, GBP: -0.878 } });
    try {
      await expect(readEcbRates(negative.url, FRESH)).rejects.toThrow(/the rate of GBP is '-0\.878', not a positive number/);
    } finally {
      await negative.close();
    }
  });

  it('lastWeekday steps a weekend back to Friday', () => {
    expect(lastWeekday(new Date('2026-11-27T23:59:00Z'))).toBe('2026-11-27'); // Friday
    expect(lastWeekday(new Date('2026-11-28T08:00:00Z'))).toBe('2026-11-27'); // Saturday
    expect(lastWeekday(new Date('2026-11-29T08:00:00Z'))).toBe('2026-11-27'); // Sunday
    expect(lastWeekday(new Date('2026-11-30T00:00:00Z'))).toBe('2026-11-30'); // Monday
  });

  it('refuses an answer other than 2xx, naming its status', async () => {
    const server = createServer((_req, res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal Server Error'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${ECB_DAILY_PATH}`;
    try {
      await expect(readEcbRates(url, FRESH)).rejects.toThrow(`ECB rates from ${url}: HTTP 500 Internal Server Error`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

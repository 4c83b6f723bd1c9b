import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { readEcbDailyFile } from '../../scripts/lib/ecb-rates.ts';

/**
 * A local stand-in for the European Central Bank's daily euro reference rates,
 * https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml (dev and tests only; nothing under
 * src/ imports it). It serves the ECB's XML in its exact format (namespaces, tabs, single-quoted
 * attributes), with the rates of tests/fixtures/ecb/eurofxref-daily.xml dated like a live feed.
 */

/** The ECB's own file of one day (2026-11-27), which the stand-in's rates come from. */
export const ECB_FIXTURE_FILE = fileURLToPath(new URL('../../tests/fixtures/ecb/eurofxref-daily.xml', import.meta.url));
/** The path of the daily file on www.ecb.europa.eu, served here at the same path. */
export const ECB_DAILY_PATH = '/stats/eurofxref/eurofxref-daily.xml';

export interface EcbStandInOptions {
  /** The `Cube time` served (YYYY-MM-DD); by default the last weekday, counted at each request (lastWeekday). */
  date?: string;
  /** Every rate served, units per euro, in this order; by default the fixture's (as written there, '181.20'). */
  rates?: Record<string, number>;
}

export interface EcbStandIn {
  /** The full URL of the daily XML, for readEcbRates or ECB_RATES_URL. */
  url: string;
  close(): Promise<void>;
}

export async function startEcbStandIn(options: EcbStandInOptions = {}): Promise<EcbStandIn> {
  const rates: [string, string][] = options.rates
    ? Object.entries(options.rates).map(([currency, rate]) => [currency, String(rate)])
    : readEcbDailyFile(readFileSync(ECB_FIXTURE_FILE, 'utf8'), ECB_FIXTURE_FILE).rates;

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    if (path !== ECB_DAILY_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`Not found: ${req.method} ${path}\n`);
      return;
    }
    const body = ecbDailyXml(options.date ?? lastWeekday(), rates);
    res.writeHead(200, { 'Content-Type': 'text/xml', 'Content-Length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${ECB_DAILY_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The ECB's daily file, byte for byte in its layout: its envelope, one dated Cube, one Cube per currency. */
export function ecbDailyXml(date: string, rates: readonly (readonly [currency: string, rate: string])[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">',
    '\t<gesmes:subject>Reference rates</gesmes:subject>',
    '\t<gesmes:Sender>',
    '\t\t<gesmes:name>European Central Bank</gesmes:name>',
    '\t</gesmes:Sender>',
    '\t<Cube>',
    `\t\t<Cube time='${escapeAttribute(date)}'>`,
    ...rates.map(([currency, rate]) => `\t\t\t<Cube currency='${escapeAttribute(currency)}' rate='${escapeAttribute(rate)}'/>`),
    '\t\t</Cube>',
    '\t</Cube>',
    '</gesmes:Envelope>',
    '',
  ].join('\n');
}

/**
 * The day a live daily feed shows at `now`: today's UTC date, a weekend stepped back to Friday (the
 * ECB publishes on working days; its holidays, and a request before the day's 16:00 CET release, are
 * not modelled).
 */
export function lastWeekday(now = new Date()): string {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const weekday = day.getUTCDay();
  day.setUTCDate(day.getUTCDate() - (weekday === 0 ? 2 : weekday === 6 ? 1 : 0));
  return day.toISOString().slice(0, 10);
}

function escapeAttribute(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll("'", '&apos;');
}

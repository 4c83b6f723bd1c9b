import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BASE_CURRENCY, CURRENCIES } from '../../src/config/currencies.ts';
import { staleRates, type PerEuro } from '../../src/pricing/exchange-rates.ts';

/**
 * The European Central Bank's euro reference rates (issue 34), as the catalogue generator reads
 * them: the ECB's daily XML (eurofxref-daily.xml, published every TARGET working day around
 * 16:00 CET), or the same format from its stand-in (stand-ins/ecb/) or a file.
 */
export const ECB_DAILY_RATES_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

/** The namespaces of the ECB's file: the envelope's (GESMES) and the rates' (its default namespace). */
export const GESMES_NAMESPACE = 'http://www.gesmes.org/xml/2002-08-01';
export const EUROFXREF_NAMESPACE = 'http://www.ecb.int/vocabulary/2002-08-01/eurofxref';

const FETCH_TIMEOUT_MS = 15_000;

export interface PublishedRates {
  /** Where they were read: a URL or a file path. */
  source: string;
  /** The ECB's reference day (`Cube time`), YYYY-MM-DD. */
  date: string;
  /** Our listed currencies only (CURRENCIES without the euro), units per euro. */
  perEuro: PerEuro;
}

/** One day's file as published: every currency's rate as written ('181.20'), in the file's order. */
export interface EcbDailyFile {
  date: string;
  rates: [currency: string, rate: string][];
}

const LISTED = CURRENCIES.filter((currency) => currency !== BASE_CURRENCY);

// Every element an array and attributes apart ('@_'), prefixes kept: fast-xml-parser does not resolve
// namespaces itself (removeNSPrefix only drops the prefixes, and the xmlns declarations with them),
// so the names are resolved below against the declarations in scope.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: false,
  parseAttributeValue: false,
  parseTagValue: false,
  isArray: (_name, _path, _isLeaf, isAttribute) => !isAttribute,
});

type XmlElement = Record<string, unknown>;
/** Prefix ('' for the default namespace) → namespace URI. */
type Scope = ReadonlyMap<string, string>;
interface XmlNode {
  element: XmlElement;
  scope: Scope;
}

/**
 * Reads one day's ECB file: checks it is XML, the ECB's envelope (gesmes:Envelope in GESMES's
 * namespace, its Cube in the eurofxref one, whatever the prefixes) with exactly one dated Cube, a
 * real date, one Cube per currency with a rate. The rates are kept as written; parseEcbRates
 * checks their values. Throws an Error naming `source` and what is wrong.
 */
export function readEcbDailyFile(xml: string, source: string): EcbDailyFile {
  const refuse = (problem: string) => new Error(`ECB rates from ${source}: ${problem}`);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    const { line, col, msg } = valid.err;
    const where = xml.trim() === '' ? 'empty' : `line ${line}${col === undefined ? '' : `, column ${col}`}: ${msg}`;
    throw refuse(`not XML (${where}); expected the ECB's eurofxref-daily.xml`);
  }
  const document = parser.parse(xml) as XmlElement;
  const roots = elementsOf({ element: document, scope: new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]) });
  const root = roots[0];
  if (roots.length !== 1 || !root || root.namespace !== GESMES_NAMESPACE || root.local !== 'Envelope') {
    const found = root ? `<${root.name}>${root.namespace ? ` in namespace ${root.namespace}` : ' in no namespace'}` : 'no element';
    throw refuse(`not the ECB's format: the root is ${found}, not a gesmes:Envelope in namespace ${GESMES_NAMESPACE}`);
  }
  const cubes = (node: XmlNode) => elementsOf(node).filter((child) => child.namespace === EUROFXREF_NAMESPACE && child.local === 'Cube');
  const days = cubes(root).flatMap(cubes);
  if (days.length === 0) throw refuse(`no date and no rates: the envelope holds no dated Cube (Cube in namespace ${EUROFXREF_NAMESPACE})`);
  if (days.length > 1) throw refuse(`${days.length} dated Cubes: not the daily file, which holds one day's rates`);
  const day = days[0]!;
  const date = day.element['@_time'];
  if (typeof date !== 'string' || date.trim() === '') throw refuse("no date: the day's Cube has no time");
  if (!isDay(date)) throw refuse(`the date '${date}' is not a day (YYYY-MM-DD)`);

  const rates: EcbDailyFile['rates'] = [];
  const problems: string[] = [];
  for (const cube of cubes(day)) {
    const currency = cube.element['@_currency'];
    const rate = cube.element['@_rate'];
    if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
      problems.push(`a Cube without a currency code (currency=${JSON.stringify(currency ?? null)})`);
    } else if (rates.some(([seen]) => seen === currency)) {
      problems.push(`${currency} listed twice`);
    } else if (typeof rate !== 'string') {
      problems.push(`${currency} has no rate`);
    } else {
      rates.push([currency, rate]);
    }
  }
  if (problems.length > 0) throw refuse(problems.join('; '));
  return { date, rates };
}

/**
 * Parses the ECB's daily XML into our listed currencies' rates (readEcbDailyFile's checks, then:
 * every rate a positive finite number, every listed currency there). Throws an Error naming
 * `source` and what is wrong: not XML, not the ECB's format, no date, a bad rate, each listed
 * currency missing.
 */
export function parseEcbRates(xml: string, source: string): PublishedRates {
  const file = readEcbDailyFile(xml, source);
  const problems: string[] = [];
  const byCurrency = new Map<string, number>();
  for (const [currency, text] of file.rates) {
    const rate = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(rate) || rate <= 0) problems.push(`the rate of ${currency} is '${text}', not a positive number`);
    else byCurrency.set(currency, rate);
  }
  const missing = LISTED.filter((currency) => !file.rates.some(([listed]) => listed === currency));
  if (missing.length > 0) problems.push(`no rate for ${missing.join(', ')} (listed in CURRENCIES)`);
  if (problems.length > 0) throw new Error(`ECB rates from ${source} of ${file.date}: ${problems.join('; ')}`);
  return {
    source,
    date: file.date,
    perEuro: Object.fromEntries(LISTED.map((currency) => [currency, byCurrency.get(currency)!])) as PerEuro,
  };
}

/**
 * The ECB's rates from `source`: an http(s) URL (fetched, 15 s at most; an answer other than 2xx
 * is refused naming its status) or a file (a path or a file: URL). Refuses rates older than
 * MAX_RATE_AGE_DAYS at `now` (staleRates), naming their date and age.
 */
export async function readEcbRates(source: string, now = new Date()): Promise<PublishedRates> {
  const rates = parseEcbRates(await readSource(source), source);
  const stale = staleRates(rates, now);
  if (stale) throw new Error(`ECB rates from ${source}: ${stale}`);
  return rates;
}

async function readSource(source: string): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    try {
      const response = await fetch(source, {
        headers: { accept: 'text/xml, application/xml' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new HttpRefusal(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
      }
      return await response.text();
    } catch (error) {
      if (error instanceof HttpRefusal) throw new Error(`ECB rates from ${source}: ${error.message}`);
      const reason =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer in ${FETCH_TIMEOUT_MS / 1000} s`
          : `no answer (${error instanceof Error ? describeFetchError(error) : String(error)})`;
      throw new Error(`ECB rates from ${source}: ${reason}`, { cause: error });
    }
  }
  try {
    return await readFile(source.startsWith('file:') ? fileURLToPath(source) : source, 'utf8');
  } catch (error) {
    throw new Error(`ECB rates from ${source}: cannot read the file (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
}

class HttpRefusal extends Error {}

/** fetch's 'fetch failed' says nothing: its cause says why (ECONNREFUSED, ENOTFOUND …). */
function describeFetchError(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

/** A real calendar day written YYYY-MM-DD (not 2026-02-30). */
function isDay(text: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}$/.test(text) &&
    !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) &&
    new Date(`${text}T00:00:00Z`).toISOString().startsWith(text)
  );
}

interface ResolvedElement extends XmlNode {
  /** The name as written, prefix included. */
  name: string;
  namespace: string | undefined;
  local: string;
}

/** A node's child elements in document order per name, each with its namespace resolved in its own scope. */
function elementsOf(node: XmlNode): ResolvedElement[] {
  return Object.entries(node.element)
    .filter(([name]) => !name.startsWith('@_') && !name.startsWith('?') && !name.startsWith('#'))
    .flatMap(([name, values]) =>
      (Array.isArray(values) ? values : [values]).map((value) => {
        // A text-only or empty element comes as its text: it has no attributes, so no declarations.
        const element: XmlElement = typeof value === 'object' && value !== null ? (value as XmlElement) : {};
        const scope = scopeOf(element, node.scope);
        const colon = name.indexOf(':');
        const prefix = colon === -1 ? '' : name.slice(0, colon);
        return { element, scope, name, namespace: scope.get(prefix) || undefined, local: name.slice(colon + 1) };
      }),
    );
}

/** The parent's namespace declarations with the element's own (xmlns, xmlns:prefix) over them. */
function scopeOf(element: XmlElement, parent: Scope): Scope {
  const own = Object.entries(element).filter(([name]) => name === '@_xmlns' || name.startsWith('@_xmlns:'));
  if (own.length === 0) return parent;
  const scope = new Map(parent);
  for (const [name, uri] of own) scope.set(name === '@_xmlns' ? '' : name.slice('@_xmlns:'.length), String(uri));
  return scope;
}

import { isIPv6 } from 'node:net';
import { Hono } from 'hono';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { catalogueError } from './answers.ts';

/**
 * POST /csp-reports receives the browser's Content-Security-Policy violation reports, in the
 * Reporting API's form (`application/reports+json`: `[{ type: 'csp-violation', url, body }]`)
 * or the legacy `report-uri` form (`application/csp-report`: `{ "csp-report": {...} }`), and
 * logs one bounded line per violation: at most MAX_LOGGED_PER_REQUEST of one request, then one
 * line counting the rest, and at most `cspReportLimit` requests per client (per IP address, an
 * IPv6 client per /64), above which it answers 429 with Retry-After. Anyone can post here, so
 * nobody may fill the log. Browsers send reports cross-origin, hence CORS.
 */
const MAX_REPORT_BYTES = 64 * 1024;
const MAX_FIELD_LENGTH = 500;
/** A page breaks a few rules at most; a body of thousands of violations is somebody filling the log. */
const MAX_LOGGED_PER_REQUEST = 10;
const CSP_REPORT_LIMIT = { requests: 30, windowSeconds: 60 };
const CORS = { 'Access-Control-Allow-Origin': '*' };

export interface CspReportOptions {
  /**
   * Proxies in front of the API that each append the address they were called from to
   * X-Forwarded-For: the client is that many entries from the right (anything further left is
   * whatever the client sent). 0 (the default): the socket's peer is the client.
   */
  trustedProxies?: number | undefined;
  /** How many requests one client may send in `windowSeconds` (default 30 a minute). */
  cspReportLimit?: { requests: number; windowSeconds: number };
}

/** Mounted at /csp-reports. The server's bindings (c.env: the socket) tell clients apart. */
export function cspReportRoutes(options: CspReportOptions = {}) {
  const limit = options.cspReportLimit ?? CSP_REPORT_LIMIT;
  const limiter = new RateLimiterMemory({ keyPrefix: 'csp-reports', points: limit.requests, duration: limit.windowSeconds });
  const trustedProxies = options.trustedProxies ?? 0;

  return new Hono()
    .options('/', (c) =>
      c.body(null, 204, {
        ...CORS,
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Content-Type',
        'Access-Control-Max-Age': '86400',
      }),
    )
    .post('/', async (c) => {
      const request = c.req.raw;
      try {
        await limiter.consume(clientKey(request, c.env, trustedProxies));
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
        return catalogueError(c, 429, 'too_many_reports', 'Too many reports from this address: try again later.', {
          ...CORS,
          'Retry-After': String(seconds),
        });
      }
      const mediaType = request.headers.get('content-type')?.split(';')[0]!.trim().toLowerCase();
      if (mediaType !== 'application/reports+json' && mediaType !== 'application/csp-report') {
        return catalogueError(c, 415, 'unsupported_media_type', 'Content-Type must be application/reports+json or application/csp-report.');
      }
      const text = await readAtMost(request, MAX_REPORT_BYTES);
      if (text === undefined) return catalogueError(c, 413, 'report_too_large', `Reports are limited to ${MAX_REPORT_BYTES} bytes.`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return catalogueError(c, 400, 'malformed_report', 'The body is not JSON.');
      }
      const violations = mediaType === 'application/reports+json' ? reportingApiViolations(body) : legacyViolation(body);
      if (violations === undefined) return catalogueError(c, 400, 'malformed_report', 'The body is not a CSP violation report.');
      for (const violation of violations.slice(0, MAX_LOGGED_PER_REQUEST)) console.warn('csp-violation', JSON.stringify(violation));
      if (violations.length > MAX_LOGGED_PER_REQUEST) {
        console.warn(
          'csp-violations-dropped',
          JSON.stringify({ logged: MAX_LOGGED_PER_REQUEST, dropped: violations.length - MAX_LOGGED_PER_REQUEST }),
        );
      }
      return c.body(null, 204, CORS);
    })
    .all('/', (c) => catalogueError(c, 405, 'method_not_allowed', 'Only POST is supported.', { Allow: 'POST, OPTIONS' }));
}

/** What @hono/node-server passes a handler beside the request. */
interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string | undefined } };
}

/**
 * The client a request counts against: its IP address (behind trusted proxies the entry of
 * X-Forwarded-For the outermost one wrote, else the socket's peer), an IPv6 address by its /64
 * (one household or server has a whole /64), and one shared key when there is none (a handler
 * called in-process).
 */
export function clientKey(request: Request, connection: unknown, trustedProxies: number): string {
  const hops =
    request.headers
      .get('x-forwarded-for')
      ?.split(',')
      .map((hop) => hop.trim())
      .filter(Boolean) ?? [];
  const address =
    (trustedProxies > 0 && hops.length >= trustedProxies
      ? hops[hops.length - trustedProxies]
      : (connection as NodeBindings | undefined)?.incoming?.socket?.remoteAddress) || 'unknown';
  return ipv6Prefix(address) ?? address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

/** The /64 an IPv6 address belongs to ('2001:db8:1:2::/64'); undefined for anything else, and for an IPv4 address mapped into IPv6. */
function ipv6Prefix(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare) || /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(bare)) return undefined;
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // A trailing dotted IPv4 part ('64:ff9b::192.0.2.1') stands for two groups.
  const width = (groups: string[]) => groups.length + (groups.at(-1)?.includes('.') ? 1 : 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/** The body as text, or undefined once it exceeds `limit` bytes (declared or streamed). */
async function readAtMost(request: Request, limit: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length')) > limit) return undefined;
  if (!request.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

interface Violation {
  documentURL?: string | undefined;
  blockedURL?: string | undefined;
  effectiveDirective?: string | undefined;
  disposition?: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const field = (value: unknown) => (typeof value === 'string' ? value.slice(0, MAX_FIELD_LENGTH) : undefined);

/** Reports of other types (deprecation, intervention) may share the endpoint: they are skipped. */
function reportingApiViolations(body: unknown): Violation[] | undefined {
  if (!Array.isArray(body)) return undefined;
  return body
    .filter((report) => isRecord(report) && report.type === 'csp-violation' && isRecord(report.body))
    .map(({ url, body: b }: { url?: unknown; body: Record<string, unknown> }) => ({
      documentURL: field(b.documentURL ?? url),
      blockedURL: field(b.blockedURL),
      effectiveDirective: field(b.effectiveDirective),
      disposition: field(b.disposition),
    }));
}

function legacyViolation(body: unknown): Violation[] | undefined {
  const report = isRecord(body) ? body['csp-report'] : undefined;
  if (!isRecord(report)) return undefined;
  return [
    {
      documentURL: field(report['document-uri']),
      blockedURL: field(report['blocked-uri']),
      // Older browsers send only violated-directive.
      effectiveDirective: field(report['effective-directive'] ?? report['violated-directive']),
      disposition: field(report.disposition),
    },
  ];
}

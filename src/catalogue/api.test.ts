import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CURRENCIES } from '../config/currencies.ts';
import { CACHE_CONTROL, createCatalogueApi } from './api.ts';
import { CountryList, PackageList, PUBLIC_PACKAGE_FIELDS, RegionList } from './schema.ts';
import { embeddedSnapshot } from './snapshot.ts';
import { serveApi } from '../../scripts/lib/api-server.ts';

// Contract tests over HTTP against the real handler on the committed snapshot.
// `underBase` serves the same handler the way a deployed function is mounted, under /api.
// Every request here comes from 127.0.0.1: the CSP report limit per client is raised out of the
// way, and tested on servers of its own (POST /csp-reports).
let api: Awaited<ReturnType<typeof serveApi>>;
let underBase: Awaited<ReturnType<typeof serveApi>>;
const cspReportLimit = { requests: 10_000, windowSeconds: 60 };
beforeAll(async () => {
  api = await serveApi(createCatalogueApi(embeddedSnapshot(), { cspReportLimit }));
  underBase = await serveApi(createCatalogueApi(embeddedSnapshot(), { basePath: '/api', cspReportLimit }));
});
afterAll(() => Promise.all([api.close(), underBase.close()]));

const get = (path: string, init?: RequestInit) => fetch(`${api.url}${path}`, init);

describe('GET /countries', () => {
  it('lists every country with the spec fields, named in the asked language', async () => {
    const response = await get('/countries?lang=ja');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const countries = CountryList.parse(await response.json());
    expect(countries.length).toBeGreaterThan(200);
    expect(countries.find((c) => c.code === 'JP')).toMatchObject({ name: '日本', flag: '/flags/JP.svg' });
  });

  it('answers in English by default, with search aliases', async () => {
    const countries = CountryList.parse(await (await get('/countries')).json());
    const us = countries.find((c) => c.code === 'US')!;
    expect(us.name).toBe('United States');
    expect(us.aliases).toContain('USA');
  });

  it('is cacheable by a CDN', async () => {
    expect((await get('/countries')).headers.get('cache-control')).toBe(CACHE_CONTROL);
  });
});

describe('GET /regions', () => {
  it('lists the nine regions with their countries', async () => {
    const regions = RegionList.parse(await (await get('/regions?lang=de')).json());
    expect(regions.map((r) => r.code).sort()).toEqual([
      'africa',
      'asia',
      'caribbean',
      'europe',
      'global',
      'latin-america',
      'mena',
      'north-america',
      'oceania',
    ]);
    const europe = regions.find((r) => r.code === 'europe')!;
    expect(europe.name).toBe('Europa');
    expect(europe.supportedCountries).toEqual(expect.arrayContaining(['DE', 'FR', 'IT', 'ES', 'PL']));
    expect(europe.supportedCountries).not.toContain('JP');
  });
});

describe('GET /packages', () => {
  it('answers the plans of a country, by upper- or lower-case code', async () => {
    const upper = PackageList.parse(await (await get('/packages?regionId=DE')).json());
    const lower = PackageList.parse(await (await get('/packages?regionId=de')).json());
    expect(upper).toEqual(lower);
    expect(upper.length).toBeGreaterThanOrEqual(3);
    for (const pkg of upper) {
      expect(pkg.supportedCountries).toEqual(['DE']);
      expect(pkg.price).toMatchObject({ amountMinor: expect.any(Number), currency: 'EUR' });
    }
  });

  it("answers the contract fields only: never the partner code, the wholesale price, the margin or the partners' offers", async () => {
    const snapshot = embeddedSnapshot();
    // Germany and Europe are sold by both partners (issue 48): plans with two offers each.
    expect(snapshot.packages.some((p) => p.destination === 'DE' && p.offers.length === 2)).toBe(true);
    expect(snapshot.packages.some((p) => p.destination === 'europe' && p.offers.length === 2)).toBe(true);
    for (const regionId of ['DE', 'europe', 'global']) {
      const text = await (await get(`/packages?regionId=${regionId}`)).text();
      const plans = JSON.parse(text) as Record<string, unknown>[];
      expect(plans.length).toBeGreaterThan(0);
      for (const plan of plans) {
        expect(Object.keys(plan).sort()).toEqual(PUBLIC_PACKAGE_FIELDS);
        // The euro price, and the same plan in every listed currency (issue 34).
        expect((plan.price as { currency: string }).currency).toBe('EUR');
        expect(Object.keys(plan.prices as object)).toEqual([...CURRENCIES]);
        expect(Object.keys(plan.metadata as object)).toEqual(['dataAmount']);
        expect(Object.keys(plan.facts as object).sort()).toEqual([
          'data',
          'hotspot',
          'installWithinDays',
          'networks',
          'sms',
          'topUp',
          'trafficExit',
          'validityStarts',
        ]);
      }
      for (const pkg of snapshot.packages.filter((p) => p.destination === regionId)) {
        for (const { partnerCode } of [pkg, ...pkg.offers]) expect(text).not.toContain(partnerCode);
      }
      // Operator names are the partner's words ('Partner' is one in Israel): checked without them.
      const withoutOperators = JSON.stringify(plans.map((plan) => ({ ...plan, facts: { ...(plan.facts as object), networks: [] } })));
      expect(withoutOperators).not.toMatch(/wholesale|partner|margin|destination|offers|esim-access|esim-go/i);
    }
  });

  it('answers regional plans that list their countries', async () => {
    const plans = PackageList.parse(await (await get('/packages?regionId=europe')).json());
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) expect(plan.supportedCountries.length).toBeGreaterThan(30);
  });

  it.each([
    ['/packages', 400, 'missing_region_id'],
    ['/packages?regionId=', 400, 'missing_region_id'],
    ['/packages?regionId=%20%20', 400, 'missing_region_id'],
    ['/packages?regionId=D', 400, 'malformed_region_id'],
    ['/packages?regionId=de1', 400, 'malformed_region_id'],
    ['/packages?regionId=%3Cscript%3E', 400, 'malformed_region_id'],
    ['/packages?regionId=%E6%97%A5%E6%9C%AC', 400, 'malformed_region_id'],
    ['/packages?regionId=%%%', 400, 'malformed_region_id'],
    ['/packages?regionId=ZZ', 404, 'unknown_region_id'],
    ['/packages?regionId=atlantis', 404, 'unknown_region_id'],
    ['/countries?lang=ko', 400, 'unsupported_lang'],
    ['/nothing-here', 404, 'not_found'],
  ])('%s answers %i with a JSON error', async (path, status, code) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(10);
  });

  it('never answers 500 to odd input', async () => {
    const odd = ['regionId=' + 'a'.repeat(5000), 'regionId=..%2F..%2Fetc', 'regionId[]=de', 'regionId=de&regionId=fr', 'regionId=%00'];
    for (const query of odd) expect((await get(`/packages?${query}`)).status, query).toBeLessThan(500);
  });
});

describe('methods', () => {
  it('refuses writes with 405 and allows HEAD', async () => {
    const post = await get('/countries', { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await get('/countries', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('a base path', () => {
  it('serves the routes under it only, matched by whole segment', async () => {
    expect((await fetch(`${underBase.url}/api/countries`)).status).toBe(200);
    expect((await fetch(`${underBase.url}/api/packages/?regionId=de`)).status).toBe(200);
    for (const path of [
      '/countries',
      '/apicountries',
      '/apiconstructor',
      '/api__proto__',
      '/api',
      '/api/',
      '/api/constructor',
      '/api/__proto__',
      '/x/api/countries',
    ]) {
      const response = await fetch(`${underBase.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('not_found');
    }
  });
});

/** Sends exactly `path` (fetch would normalise it and refuses TRACE) and reads the answer. */
function send(origin: string, method: string, path: string, headers: Record<string, string> = {}, body?: string, localAddress?: string) {
  const { hostname, port } = new URL(origin);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>((resolve, reject) => {
    // Node sends a DELETE's or an OPTIONS' body without a length unless told: the server would read it as a request.
    const length = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
    const req = request(
      { hostname, port, method, path, headers: { ...headers, ...length }, ...(localAddress && { localAddress }) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Mulberry32: a small seeded generator, so every run sends the same requests. */
function seeded(seed: number): <T>(items: readonly T[]) => T {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (items) => items[Math.floor(next() * items.length)]!;
}

describe('generated odd requests', () => {
  const ROUTES = ['/countries', '/regions', '/packages'];
  const odd = [
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'prototype',
    '',
    '.',
    '..',
    '%2e%2e',
    '%00',
    '%E0%A4%A',
    '%',
    '%%',
    'countries%2F',
    'Countries',
    'packages.json',
    '*',
    '\\',
    encodeURIComponent('日本'),
    'a'.repeat(3000),
  ];
  const keys = ['lang', 'lang', 'regionId', 'regionId', 'regionId', 'regionid', 'lang[]', '__proto__', 'constructor', ''];
  const values = [
    'en',
    'de',
    'ja',
    'EN',
    'ko',
    'de-DE',
    '',
    'constructor',
    '__proto__',
    'toString',
    'DE',
    'de',
    'europe',
    'Europe',
    'north-america',
    'ZZ',
    'atlantis',
    '%',
    '%E0%A4%A',
    '%00',
    '%FF%FE',
    'a'.repeat(3000),
    `${'x'.repeat(39)}-y`,
    '..%2F..%2Fetc',
    '%3Cscript%3E',
    'D',
    '-1',
    '1e309',
    'NaN',
    '+',
    encodeURIComponent('日本'),
    '%20de%20',
  ];
  const methods = ['GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE'];
  const contentTypes = [
    undefined,
    'application/json',
    'text/plain',
    'application/reports+json',
    'application/reports+json',
    'application/csp-report',
  ];
  const bodies = [
    '',
    '{}',
    '[]',
    'not json',
    'x'.repeat(70_000),
    '{"csp-report":{}}',
    '{"csp-report":{"blocked-uri":"inline"}}',
    JSON.stringify([{ type: 'csp-violation', url: 'https://esim.example/', body: { blockedURL: 'x'.repeat(5000), disposition: 1 } }]),
  ];

  /** Most requests aim at a catalogue route under the right base, a quarter at the report route; many miss. */
  function generate(base: string, seed: number) {
    const pick = seeded(seed);
    const prefixes = [base, base, base, base, '', '/api', '/api/', '/apix', '/API', '/ap', '/api/api', `${base}/..${base}`];
    const segments = ['countries', 'regions', 'packages', 'countries', 'regions', 'packages', 'packages', ...odd];
    return Array.from({ length: 300 }, () => {
      if (pick([true, false, false, false])) {
        const method = pick(['POST', 'POST', 'POST', 'OPTIONS', 'GET', 'PUT']);
        const contentType = pick(contentTypes);
        return {
          method,
          target: pick([`${base}/csp-reports`, `${base}/csp-reports`, `${base}/csp-reports/`, '/csp-reports', `${base}/csp-report`]),
          headers: contentType ? { 'Content-Type': contentType } : {},
          body: pick(bodies),
        };
      }
      let path = `${pick(prefixes)}/${pick(segments)}`;
      if (pick([true, false, false, false, false])) path += `/${pick(segments)}`;
      if (pick([true, false, false, false])) path += '/';
      const query = Array.from({ length: pick([0, 1, 1, 2, 3]) }, () => `${pick(keys)}=${pick(values)}`).join('&');
      const method = pick(methods);
      return {
        method,
        target: query ? `${path}?${query}` : path,
        headers: {},
        body: method === 'GET' || method === 'HEAD' ? undefined : pick(bodies),
      };
    });
  }

  it.each([
    ['without a base path', ''],
    ['under the base path /api', '/api'],
  ])('%s, each answers JSON 200, a JSON 4xx, or 204 from csp-reports', async (_, base) => {
    const server = base ? underBase : api;
    vi.spyOn(console, 'warn').mockImplementation(() => {}); // Generated CSP reports log a line each.
    const statuses = new Set<number>();
    try {
      for (const { method, target, headers, body } of generate(base, 12)) {
        const label = `${method} ${target.slice(0, 200)}`;
        const response = await send(server.url, method, target, headers, body);
        statuses.add(response.status);
        expect(response.status, label).toBeLessThan(500);
        const rawPath = target.split('?')[0]!;
        // No URL: the server refuses it before the handler, in the API's JSON all the same.
        if (rawPath.includes('\\')) {
          expect([response.status, response.headers['content-type']], label).toEqual([400, 'application/json']);
          continue;
        }
        // The oracle: the route a correct server picks, from the path as a URL parser reads it.
        const pathname = new URL(`http://catalogue.test${rawPath}`).pathname.replace(/\/+$/, '');
        const route = base && !pathname.startsWith(`${base}/`) ? undefined : pathname.slice(base.length);
        if (route === '/csp-reports' && (method === 'POST' || method === 'OPTIONS') && response.status === 204) {
          expect(response.text, label).toBe('');
          continue;
        }
        expect(response.headers['content-type'], label).toMatch(/^application\/json/);
        if (!route || (route !== '/csp-reports' && !ROUTES.includes(route))) expect(response.status, label).toBe(404);
        else if (route !== '/csp-reports' && method !== 'GET' && method !== 'HEAD') expect(response.status, label).toBe(405);
        if (method === 'HEAD') continue;
        const json: unknown = JSON.parse(response.text);
        if (response.status === 200) {
          expect(Array.isArray(json), label).toBe(true);
        } else {
          expect(response.status, label).toBeGreaterThanOrEqual(400);
          const { error } = json as { error: { code: string; message: string } };
          expect(error.code, label).toMatch(/^[a-z_]+$/);
          // Bounded: never the whole of what was sent.
          expect(error.message.length, label).toBeLessThan(200);
        }
      }
    } finally {
      vi.restoreAllMocks();
    }
    // The generated mix reaches every kind of answer, not only 404s.
    expect([...statuses].sort()).toEqual([200, 204, 400, 404, 405, 413, 415]);
  });
});

describe('POST /csp-reports', () => {
  const post = (body: string, contentType: string, server = api, path = '/csp-reports') =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  const logged = () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    return () => {
      const lines = warn.mock.calls.map(([tag, line]) => [tag, JSON.parse(line as string)]);
      warn.mockRestore();
      return lines;
    };
  };

  it('logs one bounded line per Reporting API violation and answers 204 to any origin', async () => {
    const lines = logged();
    const violation = (blockedURL: string) => ({
      type: 'csp-violation',
      url: 'https://esim.example/store',
      body: {
        documentURL: 'https://esim.example/store',
        blockedURL,
        effectiveDirective: 'script-src-elem',
        disposition: 'enforce',
        originalPolicy: "default-src 'self'",
        sample: 'secret-ish inline code',
      },
    });
    const response = await post(
      JSON.stringify([
        violation('https://evil.example/x.js'),
        { type: 'deprecation', body: {} },
        violation(`https://e.example/${'a'.repeat(2000)}`),
      ]),
      'application/reports+json',
      underBase,
      '/api/csp-reports',
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const [first, second, ...rest] = lines();
    expect(rest).toEqual([]);
    expect(first).toEqual([
      'csp-violation',
      {
        documentURL: 'https://esim.example/store',
        blockedURL: 'https://evil.example/x.js',
        effectiveDirective: 'script-src-elem',
        disposition: 'enforce',
      },
    ]);
    expect(second![1].blockedURL).toHaveLength(500);
  });

  it('reads the legacy report-uri form', async () => {
    const lines = logged();
    const report = {
      'csp-report': {
        'document-uri': 'https://esim.example/',
        'blocked-uri': 'inline',
        'violated-directive': 'script-src',
        disposition: 'report',
      },
    };
    expect((await post(JSON.stringify(report), 'application/csp-report; charset=utf-8')).status).toBe(204);
    expect(lines()).toEqual([
      [
        'csp-violation',
        { documentURL: 'https://esim.example/', blockedURL: 'inline', effectiveDirective: 'script-src', disposition: 'report' },
      ],
    ]);
  });

  it('answers the CORS preflight', async () => {
    const response = await fetch(`${api.url}/csp-reports`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://esim.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
  });

  it('refuses large bodies, other content types, non-reports and other methods, logging nothing', async () => {
    const lines = logged();
    const big = JSON.stringify([{ type: 'csp-violation', body: { blockedURL: 'x'.repeat(70_000) } }]);
    expect((await post(big, 'application/reports+json')).status).toBe(413);
    // Streamed without a Content-Length: the size is counted as it arrives.
    const streamed = await fetch(`${api.url}/csp-reports`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/reports+json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await post('[]', 'application/json')).status).toBe(415);
    expect((await post('[]', 'text/plain')).status).toBe(415);
    expect((await post('{', 'application/reports+json')).status).toBe(400);
    expect((await post('{"csp-report":1}', 'application/csp-report')).status).toBe(400);
    expect((await post('{}', 'application/reports+json')).status).toBe(400);
    const get = await fetch(`${api.url}/csp-reports`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    expect(lines()).toEqual([]);
  });

  // Issue 20, item 8: one 64 KB body of minimal reports wrote 1,872 log lines.
  it('logs at most 10 violations of one request, each field cut, and one line counting the rest', async () => {
    const lines = logged();
    const long = {
      type: 'csp-violation',
      body: {
        documentURL: `https://esim.example/${'d'.repeat(1000)}`,
        blockedURL: `https://x.example/${'b'.repeat(1000)}`,
        effectiveDirective: 's'.repeat(1000),
        disposition: 'enforce',
      },
    };
    // As many minimal reports as the 64 KB a request may carry hold.
    const reports = [long, ...Array.from({ length: 1600 }, () => ({ type: 'csp-violation', body: {} }))];
    const body = JSON.stringify(reports);
    expect(body.length).toBeLessThan(64 * 1024);
    expect((await post(body, 'application/reports+json')).status).toBe(204);
    const written = lines();
    expect(written).toHaveLength(11);
    expect(written.slice(0, 10).every(([tag]) => tag === 'csp-violation')).toBe(true);
    for (const value of Object.values(written[0]![1] as Record<string, string>)) expect(value.length).toBeLessThanOrEqual(500);
    expect(written[10]).toEqual(['csp-violations-dropped', { logged: 10, dropped: reports.length - 10 }]);
  });

  it('limits each client address: 429 with Retry-After above the limit, another address unaffected', async () => {
    const limited = await serveApi(createCatalogueApi(embeddedSnapshot(), { cspReportLimit: { requests: 3, windowSeconds: 60 } }));
    const lines = logged();
    const report = JSON.stringify([{ type: 'csp-violation', body: { blockedURL: 'inline' } }]);
    const from = (localAddress: string) =>
      send(limited.url, 'POST', '/csp-reports', { 'Content-Type': 'application/reports+json' }, report, localAddress);
    try {
      for (let i = 0; i < 3; i++) expect((await from('127.0.0.1')).status).toBe(204);
      const refused = await from('127.0.0.1');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['access-control-allow-origin']).toBe('*');
      expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'too_many_reports' } });
      // Whatever it sends: refused before its body is read.
      expect((await send(limited.url, 'POST', '/csp-reports', { 'Content-Type': 'text/plain' }, 'x', '127.0.0.1')).status).toBe(429);
      // 127.0.0.2 is another address on the loopback interface: its own allowance.
      expect((await from('127.0.0.2')).status).toBe(204);
      // Preflights are not counted.
      expect((await send(limited.url, 'OPTIONS', '/csp-reports', {}, undefined, '127.0.0.2')).status).toBe(204);
      expect(lines()).toHaveLength(4);
    } finally {
      await limited.close();
    }
  });

  it('behind trusted proxies, tells clients apart by X-Forwarded-For, never by what a client wrote into it, an IPv6 client by its /64', async () => {
    const proxied = await serveApi(
      createCatalogueApi(embeddedSnapshot(), { trustedProxies: 1, cspReportLimit: { requests: 2, windowSeconds: 60 } }),
    );
    const lines = logged();
    const report = JSON.stringify([{ type: 'csp-violation', body: { blockedURL: 'inline' } }]);
    const via = async (forwardedFor: string) =>
      (
        await send(
          proxied.url,
          'POST',
          '/csp-reports',
          { 'Content-Type': 'application/reports+json', 'X-Forwarded-For': forwardedFor },
          report,
        )
      ).status;
    try {
      // The proxy appends the address it was called from; what stands left of it is the client's own.
      expect([await via('203.0.113.7'), await via('1.1.1.1, 203.0.113.7'), await via('2.2.2.2,203.0.113.7')]).toEqual([204, 204, 429]);
      expect(await via('198.51.100.1')).toBe(204);
      expect([
        await via('2001:db8:1:2::1'),
        await via('2001:db8:1:2:ffff::9'),
        await via('2001:0db8:0001:0002::5'),
        await via('2001:db8:1:3::1'),
      ]).toEqual([204, 204, 429, 204]);
    } finally {
      lines();
      await proxied.close();
    }
  });

  it('is no catalogue route, and the catalogue routes stay GET-only', async () => {
    expect((await fetch(`${api.url}/countries`, { method: 'OPTIONS' })).status).toBe(405);
    expect((await post('[]', 'application/reports+json', underBase, '/csp-reports')).status).toBe(404);
    expect((await post('[]', 'application/reports+json', underBase, '/api/csp-report')).status).toBe(404);
  });
});

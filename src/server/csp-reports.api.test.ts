import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { serveApi } from '../../scripts/lib/api-server.ts';
import { STAND_IN_SECRET_KEY } from '../../stand-ins/stripe/server.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { startDeliveryStandIns, type DeliveryStandIns } from '../../tests/support/delivery-stand-ins.ts';
import { testShopApi } from '../../tests/support/shop-api.ts';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import type { ShopApiOptions } from './wiring.ts';
import type { Db } from './db/db.types.ts';
import { createStripe } from './payments/stripe.ts';

/**
 * POST /api/csp-reports through the shop API as production serves it (issue 20, item 8): each
 * client address gets its own allowance (30 a minute), so the server's connection has to reach
 * the catalogue handler; behind trusted proxies the address comes from X-Forwarded-For. The
 * per-request log cap and the limit itself are tested in src/catalogue/api.test.ts.
 */
const LIMIT = 30;

describe('CSP reports through the shop API', () => {
  let db: Db;
  let stand: DeliveryStandIns;
  const servers: Awaited<ReturnType<typeof serveApi>>[] = [];

  beforeAll(async () => {
    process.env.FIREBASE_AUTH_EMULATOR_HOST = inject('authEmulatorHost');
    db = await databaseDrivers()[0]!.open();
    stand = await startDeliveryStandIns();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await stand?.close();
    await db?.close();
  });

  async function serve(overrides: Partial<ShopApiOptions> = {}) {
    const stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: 'http://127.0.0.1:9' });
    const server = await serveApi(
      testShopApi({ catalogue: embeddedSnapshot(), db, stripe, siteUrl: 'http://127.0.0.1:4329', ...stand.options }, overrides),
    );
    servers.push(server);
    return server.url;
  }

  const report = JSON.stringify([
    { type: 'csp-violation', url: 'https://esim.example/', body: { blockedURL: 'inline', effectiveDirective: 'script-src-elem' } },
  ]);
  /** One report, from this local address (127.0.0.0/8 is all loopback), with these headers. */
  const post = (url: string, localAddress: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const { hostname, port } = new URL(url);
      const req = request(
        {
          hostname,
          port,
          localAddress,
          method: 'POST',
          path: '/api/csp-reports',
          headers: { 'Content-Type': 'application/reports+json', ...headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] }));
        },
      );
      req.on('error', reject);
      req.end(report);
    });
  const statuses = async (count: number, send: () => Promise<{ status: number }>) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await send()).status);
    return [...new Set(seen)];
  };

  it('gives each connecting address its own allowance, then 429 with Retry-After', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const url = await serve();
      expect(await statuses(LIMIT, () => post(url, '127.0.0.1'))).toEqual([204]);
      const refused = await post(url, '127.0.0.1');
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      // Another client: not limited by the first one's reports.
      expect((await post(url, '127.0.0.2')).status).toBe(204);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('behind a trusted proxy (TRUSTED_PROXIES=1), tells clients apart by the address the proxy appended', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const url = await serve({ trustedProxies: 1 });
      // All from the proxy's one address; what a client writes left of its own entry counts for nothing.
      expect(await statuses(LIMIT, () => post(url, '127.0.0.3', { 'X-Forwarded-For': `${Math.random()}, 203.0.113.7` }))).toEqual([204]);
      expect((await post(url, '127.0.0.3', { 'X-Forwarded-For': '203.0.113.7' })).status).toBe(429);
      expect((await post(url, '127.0.0.3', { 'X-Forwarded-For': '203.0.113.8' })).status).toBe(204);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

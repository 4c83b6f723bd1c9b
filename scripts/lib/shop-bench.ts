import { spawn } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { sellablePlans } from '../../src/server/orders/plans.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { startAuthEmulator, signUpOn } from './auth-emulator.ts';

/**
 * DESIGN 3's figures for the shop API, on a real PostgreSQL server over loopback: `POST /orders`
 * latency with 50 buyers ordering at once (p50/p99, with and without the payment provider's
 * time, which the API reports in Server-Timing), and catalogue reads per second at 50
 * connections. The API runs in its own process (scripts/local-shop.ts), as in production.
 */
export interface ShopFigures {
  buyers: number;
  orders: number;
  /** Orders a second the API completed meanwhile: with 50 buyers in a closed loop, latency ≈ 50 / this (Little's law). */
  ordersPerSecond: number;
  ordersP50Ms: number;
  ordersP99Ms: number;
  ordersWithProviderP50Ms: number;
  ordersWithProviderP99Ms: number;
  countriesPerSecond: number;
  packagesPerSecond: number;
}

const BUYERS = 50;
const ORDERS_PER_BUYER = 10;
const READ_SECONDS = 10;

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * The shop API in its own process (scripts/local-shop.ts) on a throwaway PostgreSQL server, with
 * its stand-ins on free ports and an Auth emulator of its own; resolves once it answers.
 */
export async function startBenchShop(port: number, extraArgs: string[] = []) {
  const auth = await startAuthEmulator();
  const shop = spawn(
    process.execPath,
    ['scripts/local-shop.ts', '--port', String(port), '--stripe-port', '0', '--partner-port', '0', '--smtp-port', '0', '--postgres', ...extraArgs],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, FIREBASE_AUTH_EMULATOR_HOST: auth.host } },
  );
  const api = `http://127.0.0.1:${port}/api`;
  async function stop() {
    shop.kill('SIGTERM');
    if (shop.exitCode === null) await once(shop, 'exit');
    auth.stop();
  }
  while (!(await fetch(`${api}/regions`).then((r) => r.ok, () => false))) {
    if (shop.exitCode !== null) {
      auth.stop();
      throw new Error('The shop API did not start');
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  return { api, authHost: auth.host, stop };
}

export async function benchShopApi(port = 8798): Promise<ShopFigures> {
  const { api, authHost, stop } = await startBenchShop(port);
  try {
    const buyers = await Promise.all(Array.from({ length: BUYERS }, () => signUpOn(authHost)));
    const plans = [...sellablePlans(embeddedSnapshot()).values()];
    const order = async (token: string, planIndex: number) => {
      const plan = plans[planIndex % plans.length]!;
      const started = performance.now();
      const response = await fetch(`${api}/orders`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ planId: plan.pkg.id, lang: 'en', expectedPrice: plan.price, consents: { terms: true, immediateStart: true } }),
      });
      await response.arrayBuffer();
      const total = performance.now() - started;
      if (response.status !== 201) throw new Error(`POST /orders answered ${response.status}`);
      const provider = Number(/stripe;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? 0);
      return { total, own: total - provider };
    };
    // Warm-up: connections, the token check's keys, the database's plans.
    await Promise.all(buyers.map((buyer, i) => order(buyer.idToken, i)));
    const started = performance.now();
    const samples = (
      await Promise.all(
        buyers.map(async (buyer, i) => {
          const mine = [];
          for (let n = 1; n <= ORDERS_PER_BUYER; n++) mine.push(await order(buyer.idToken, i + n * BUYERS));
          return mine;
        }),
      )
    ).flat();
    const ordersPerSecond = Math.round((samples.length / (performance.now() - started)) * 1000);
    const own = samples.map((s) => s.own).sort((a, b) => a - b);
    const total = samples.map((s) => s.total).sort((a, b) => a - b);

    const reads = async (path: string) => {
      const result = await autocannon({ url: `${api}${path}`, connections: 50, duration: READ_SECONDS });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      return Math.round(result.requests.average);
    };
    return {
      buyers: BUYERS,
      orders: samples.length,
      ordersPerSecond,
      ordersP50Ms: percentile(own, 50),
      ordersP99Ms: percentile(own, 99),
      ordersWithProviderP50Ms: percentile(total, 50),
      ordersWithProviderP99Ms: percentile(total, 99),
      countriesPerSecond: await reads('/countries?lang=ja'),
      packagesPerSecond: await reads('/packages?regionId=DE'),
    };
  } finally {
    await stop();
  }
}

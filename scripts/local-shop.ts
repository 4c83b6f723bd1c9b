// The shop API as it runs locally and in the browser tests, with its stand-ins: the Stripe
// stand-in (its hosted test-payment page and signed webhooks to this API), the database (PGlite
// under .data/ by default, DATABASE_URL, or --postgres: a throwaway real PostgreSQL server), and
// Firebase ID tokens from the Auth emulator. Served under /api, the path Hosting's rewrite gives it.
// Usage: node scripts/local-shop.ts [--port 8788] [--site-url http://127.0.0.1:4321] [--stripe-port 12111] [--postgres]
import { parseArgs } from 'node:util';
import { LOCAL_API_BASE_URL } from '../src/config/env.ts';
import { shopConfigFromEnv } from '../src/server/config.ts';
import { startShopApi } from '../src/server/start.ts';
import { STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, startStripeStandIn } from '../stand-ins/stripe/server.ts';
import { serveApi } from './lib/api-server.ts';
import { startPostgres } from './lib/postgres-server.ts';

const local = new URL(LOCAL_API_BASE_URL);
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: local.port },
    'site-url': { type: 'string', default: 'http://127.0.0.1:4321' },
    'stripe-port': { type: 'string', default: '12111' },
    postgres: { type: 'boolean', default: false },
    snapshot: { type: 'string' },
  },
});
const basePath = local.pathname;
const apiUrl = `http://127.0.0.1:${values.port}${basePath}`;

const postgres = values.postgres ? await startPostgres() : undefined;
const stripe = await startStripeStandIn({
  port: Number(values['stripe-port']),
  webhookUrl: `${apiUrl}/webhooks/stripe`,
  webhookSecret: STAND_IN_WEBHOOK_SECRET,
});
const config = shopConfigFromEnv({
  FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099',
  ...process.env,
  STRIPE_SECRET_KEY: STAND_IN_SECRET_KEY,
  STRIPE_WEBHOOK_SECRET: STAND_IN_WEBHOOK_SECRET,
  STRIPE_API_URL: stripe.url,
  SITE_URL: values['site-url'],
  ...(postgres && { DATABASE_URL: postgres.url }),
});
// firebase-admin reads the emulator's address from the environment.
process.env.FIREBASE_AUTH_EMULATOR_HOST ??= '127.0.0.1:9099';
const { handler, db } = await startShopApi(config, { basePath, snapshotFile: values.snapshot });
const api = await serveApi(handler, Number(values.port));

console.log(`Shop API at ${apiUrl} (database: ${postgres ? 'a throwaway PostgreSQL server' : config.databaseUrl ? 'DATABASE_URL' : `PGlite in ${config.dataDir}`})`);
console.log(`Stripe stand-in at ${stripe.url} (test card 4242 4242 4242 4242; events at ${stripe.url}/_stand-in/events)`);

async function stop() {
  await api.close();
  await stripe.close();
  await db.close();
  await postgres?.stop();
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());

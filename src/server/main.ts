// The shop API in production (the Docker image's command, Dockerfile): `node src/server/main.ts`
// (Node 24 runs the TypeScript as it is), configured from the environment (docs/going-live.md),
// listening on $PORT (8080 by default) with its routes under /api, the path Firebase Hosting's
// rewrite forwards (firebase.json). Before serving: the production preflight, and the database's
// schema must be current (`npm run db:migrate` runs before a release takes traffic).
import { serve } from '@hono/node-server';
import { embeddedSnapshot } from '../catalogue/snapshot.ts';
import { shopConfigFromEnv } from './config.ts';
import { SchemaBehindError } from './db/migrate.ts';
import { productionPreflight } from './preflight.ts';
import { startShopApi } from './start.ts';

const { problems, warnings } = productionPreflight(process.env, embeddedSnapshot().exchangeRates);
for (const warning of warnings) console.warn(`preflight: ${warning}`);
if (problems.length > 0) {
  console.error(`preflight: the shop API refuses to start (docs/going-live.md):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}

const config = shopConfigFromEnv();
let api: Awaited<ReturnType<typeof startShopApi>>;
try {
  api = await startShopApi(config, { basePath: '/api', schema: 'require-current' });
} catch (error) {
  if (!(error instanceof SchemaBehindError)) throw error;
  console.error(`startup: ${error.message}`);
  process.exit(1);
}
const { handler, stop } = api;
const server = serve({ fetch: handler, port: config.port }, () => console.log(`shop API listening on :${config.port}/api`));

/**
 * Cloud Run stops an instance (a rollout, scaling in) with SIGTERM and kills it 10 s later. The
 * payment page's long-polls wait up to 25 s: they answer now, as when their time is up (the order
 * as it is), and the page asks again, of an instance that stays. No new connections; each one
 * closes once its answer is out; then the timer, the alerts, the mailer and the database stop.
 * Whatever is still running after SHUTDOWN_DEADLINE_MS is cut off by this process, not by the kill.
 */
const SHUTDOWN_DEADLINE_MS = 8_000;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: answering the open long-polls, then stopping`);
    setTimeout(() => {
      console.error(`shutdown: requests still open after ${SHUTDOWN_DEADLINE_MS} ms, exiting`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    server.close(() => void stop().then(() => process.exit(0)));
    handler.endLongPolls();
    // Kept-alive connections close as soon as their answer is out (server.close closes only the idle ones of this moment).
    if ('closeIdleConnections' in server) setInterval(() => server.closeIdleConnections(), 100).unref();
  });
}

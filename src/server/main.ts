// The shop API in production (the Docker image's command, Dockerfile): `node src/server/main.ts`
// (Node 24 runs the TypeScript as it is), configured from the environment (README: Going live),
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
  console.error(`preflight: the shop API refuses to start (README: Going live):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
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
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => void stop().then(() => process.exit(0))));
}

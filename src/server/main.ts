// The shop API in production: `node src/server/main.ts` (Node 24 runs the TypeScript as it is),
// configured from the environment (README: Going live), listening on $PORT (8080 by default) with
// its routes under /api, the path Firebase Hosting's rewrite forwards (firebase.json).
import { serve } from '@hono/node-server';
import { shopConfigFromEnv } from './config.ts';
import { startShopApi } from './start.ts';

const config = shopConfigFromEnv();
const { handler, stop } = await startShopApi(config, { basePath: '/api' });
const server = serve({ fetch: handler, port: config.port }, () => console.log(`shop API listening on :${config.port}/api`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => void stop().then(() => process.exit(0))));
}

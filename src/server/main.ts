// The shop API in production: `node src/server/main.ts` (Node 24 runs the TypeScript as it is),
// configured from the environment (README: Going live), listening on $PORT (8080 by default) with
// its routes under /api, the path Firebase Hosting's rewrite forwards (firebase.json).
import { serve } from '@hono/node-server';
import { shopConfigFromEnv } from './config.ts';
import { startShopApi } from './start.ts';

const config = shopConfigFromEnv(process.env);
const { handler, stop } = await startShopApi(config, { basePath: '/api' });
const port = Number(process.env.PORT ?? 8080);
const server = serve({ fetch: handler, port }, () => console.log(`shop API listening on :${port}/api`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => void stop().then(() => process.exit(0))));
}

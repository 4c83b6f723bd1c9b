// The local shop API (with a throwaway real PostgreSQL server under --postgres) and the Firebase
// Auth and Hosting emulators with the local configuration (scripts/lib/emulators.ts).
// Usage: node scripts/emulators.ts [--port 4321] [--postgres]; Playwright starts it once per test run.
import { parseArgs } from 'node:util';
import { startEmulators, startLocalShop } from './lib/emulators.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4321' }, postgres: { type: 'boolean', default: false } } });
const shop = await startLocalShop(`http://127.0.0.1:${values.port}`, { postgres: values.postgres });
const emulators = startEmulators(Number(values.port));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    emulators.kill(signal);
    shop.kill(signal);
  });
}
emulators.on('close', (code) => {
  shop.kill('SIGTERM');
  process.exit(code ?? 0);
});

// Builds the storefront on its embedded defaults and serves it on http://127.0.0.1:4321.
// Usage: npm start [-- --port 4321] [-- --no-build]
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createStaticServer, listen } from './lib/static-server.ts';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '4321' }, 'no-build': { type: 'boolean', default: false } },
});

if (!values['no-build']) {
  const { status } = spawnSync('astro', ['build'], {
    stdio: 'inherit',
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  if (status !== 0) process.exit(status ?? 1);
}

const url = await listen(createStaticServer(resolve('dist')), Number(values.port));
console.log(`\nThe storefront is running at ${url}/ (Ctrl+C to stop).`);

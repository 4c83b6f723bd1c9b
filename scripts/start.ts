// Runs the storefront locally on its embedded defaults:
//   the Firebase Auth emulator on http://127.0.0.1:9099 (project demo-esim, offline),
//   the catalogue API on http://127.0.0.1:8787 (serving the committed snapshot),
//   a build of every language that reads the catalogue through that API over HTTP,
//   and the built site on http://127.0.0.1:4321.
// Usage: npm start [-- --port 4321] [-- --api-port 8787] [-- --no-build]
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCatalogueApi } from '../src/catalogue/api.ts';
import { embeddedSnapshot } from '../src/catalogue/snapshot.ts';
import { serveCatalogue } from './lib/catalogue-server.ts';
import { createStaticServer, listen } from './lib/static-server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4321' },
    'api-port': { type: 'string', default: '8787' },
    'no-build': { type: 'boolean', default: false },
  },
});

// Accounts: the Auth emulator, unless the build is configured for a real Firebase project.
if (!process.env.PUBLIC_FIREBASE_API_KEY) {
  const emulator = spawn('firebase', ['emulators:start', '--only', 'auth', '--project', 'demo-esim'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CI: 'true' },
  });
  const stop = () => emulator.kill('SIGINT');
  process.on('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
  console.log('Starting the Firebase Auth emulator (about 20 s) on http://127.0.0.1:9099 ...');
}

const { url: apiUrl } = await serveCatalogue(createCatalogueApi(embeddedSnapshot()), Number(values['api-port']));
console.log(`Catalogue API at ${apiUrl} (GET /regions, /countries, /packages?regionId=DE; ?lang=de for names)`);

if (!values['no-build']) {
  const status = await new Promise<number | null>((done) =>
    spawn('astro', ['build'], {
      stdio: 'inherit',
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', CATALOGUE_API_URL: process.env.CATALOGUE_API_URL || apiUrl },
    }).on('close', done),
  );
  if (status !== 0) process.exit(status ?? 1);
}

const siteUrl = await listen(createStaticServer(resolve('dist')), Number(values.port));
console.log(`\nThe storefront is running at ${siteUrl}/ (Ctrl+C to stop).`);

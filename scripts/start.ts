// Runs the storefront locally on its embedded defaults:
//   the catalogue API on http://127.0.0.1:8787 (serving the committed snapshot),
//   a build of every language that reads the catalogue through that API over HTTP,
//   the Firebase Auth emulator on http://127.0.0.1:9099 (project demo-esim, offline),
//   and the built site on http://127.0.0.1:4321 from the Firebase Hosting emulator, with
//   firebase.json's security headers, caching, clean URLs and 404 page.
// Usage: npm start [-- --port 4321] [-- --api-port 8787] [-- --no-build]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createCatalogueApi } from '../src/catalogue/api.ts';
import { embeddedSnapshot } from '../src/catalogue/snapshot.ts';
import { serveApi } from './lib/api-server.ts';
import { startEmulators } from './lib/emulators.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4321' },
    'api-port': { type: 'string', default: '8787' },
    'no-build': { type: 'boolean', default: false },
  },
});

const { url: apiUrl } = await serveApi(createCatalogueApi(embeddedSnapshot()), Number(values['api-port']));
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

console.log('Starting the Firebase Auth and Hosting emulators (about 20 s) ...');
const emulators = startEmulators(Number(values.port));
process.on('exit', () => emulators.kill('SIGINT'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
emulators.on('close', (code) => process.exit(code ?? 1));
console.log(`The storefront will be at http://127.0.0.1:${values.port}/ once the emulators say "All emulators ready" (Ctrl+C to stop).`);

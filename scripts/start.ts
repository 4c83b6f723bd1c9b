// Runs the storefront locally on its embedded defaults, so a newcomer can buy a plan:
//   the shop API on http://127.0.0.1:8788/api (catalogue, orders, webhooks; the committed catalogue
//   snapshot, PGlite with its data under .data/, Firebase ID tokens from the Auth emulator) and the
//   Stripe stand-in on http://127.0.0.1:12111 (hosted test-payment page, signed webhooks), the
//   eSIM Access stand-in on http://127.0.0.1:8790 (allocates each eSIM after 1 s, its webhook) and
//   the SMTP stand-in on 127.0.0.1:2525 (every e-mail as an .eml file under reports/mail/),
//   a build of every language that reads the catalogue through that API over HTTP,
//   the Firebase Auth emulator on http://127.0.0.1:9099 (project demo-esim, offline),
//   and the built site on http://127.0.0.1:4321 from the Firebase Hosting emulator, with
//   firebase.json's security headers, caching, clean URLs and 404 page.
// Usage: npm start [-- --port 4321] [-- --no-build]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { LOCAL_API_BASE_URL } from '../src/config/env.ts';
import { DEFAULT_MAIL_DIR } from '../stand-ins/smtp/server.ts';
import { LOCAL_API_LOG, startEmulators, startLocalShop } from './lib/emulators.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4321' },
    'no-build': { type: 'boolean', default: false },
  },
});

const shop = await startLocalShop(`http://127.0.0.1:${values.port}`);
process.on('exit', () => shop.kill());
console.log(`Shop API at ${LOCAL_API_BASE_URL} with the Stripe, partners' and SMTP stand-ins (log: ${LOCAL_API_LOG})`);
console.log(`E-mails the shop sends are written to ${DEFAULT_MAIL_DIR} (open an .eml file in any mail program).`);

if (!values['no-build']) {
  const status = await new Promise<number | null>((done) =>
    spawn('astro', ['build'], {
      stdio: 'inherit',
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', CATALOGUE_API_URL: process.env.CATALOGUE_API_URL || LOCAL_API_BASE_URL },
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
console.log('Buy a plan with the test card 4242 4242 4242 4242 (declined: 4000 0000 0000 0002).');

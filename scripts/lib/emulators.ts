import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCAL_API_BASE_URL } from '../../src/config/env.ts';
import { CSP_REPORT_PATH, editPolicy, readFirebaseConfig, type FirebaseConfig } from './csp.ts';

/**
 * The Firebase emulators this project runs locally and in tests: Auth (accounts) and Hosting
 * (the built site with firebase.json's headers, clean URLs and 404 page), and beside them our
 * API, which in production is the Cloud Run service behind Hosting's /api/** rewrite: the Hosting
 * emulator runs no Cloud Run services, so the API listens on its own port with the same paths.
 *
 * firebase.json is the deployment's configuration. Locally the pages talk to the Auth emulator
 * on 127.0.0.1, which the production Content-Security-Policy rightly does not allow, and report
 * violations to that local API, so the emulators run from a copy that adds exactly that.
 */
const LOCAL_CONFIG = 'firebase.local.json';
export const LOCAL_API_PORT = Number(new URL(LOCAL_API_BASE_URL).port);
/** Everything the local API prints (the CSP reports it logs among it), rewritten at each start. */
export const LOCAL_API_LOG = fileURLToPath(new URL('../../reports/local-api.log', import.meta.url));
export const LOCAL_REPORT_URL = `http://127.0.0.1:${LOCAL_API_PORT}${CSP_REPORT_PATH}`;

/** A production policy as served locally: the Auth emulator where Firebase Auth is allowed, reports to the local API. */
export function localPolicy(policy: string, authEmulator: string): string {
  return editPolicy(policy, {
    // The Auth emulator only where production talks to Firebase Auth (connect) or shows its frames.
    // Every page may call the shop API (the unsubscribe page without signing in): /api ('self')
    // in production, its own port locally.
    'connect-src': (sources) => [
      ...sources,
      ...(sources.some((s) => s.includes('identitytoolkit')) ? [authEmulator] : []),
      new URL(LOCAL_API_BASE_URL).origin,
    ],
    'frame-src': (sources) => (sources.includes("'none'") ? sources : [...sources, authEmulator]),
    // Chromium's Reporting API (report-to) delivers nothing from an http:// page and then
    // ignores report-uri too: locally every report goes through report-uri.
    'report-to': () => [],
    'report-uri': () => [LOCAL_REPORT_URL],
  });
}

export const authEmulatorOrigin = (config: FirebaseConfig) => `http://${config.emulators.auth.host}:${config.emulators.auth.port}`;

function writeLocalConfig(hostingPort: number): string {
  const config = readFirebaseConfig();
  for (const header of config.hosting.headers.flatMap((rule) => rule.headers)) {
    if (header.key === 'Content-Security-Policy') header.value = localPolicy(header.value, authEmulatorOrigin(config));
  }
  config.emulators.hosting.port = hostingPort;
  writeFileSync(LOCAL_CONFIG, JSON.stringify(config, null, 2) + '\n');
  return LOCAL_CONFIG;
}

/**
 * The shop API under /api on LOCAL_API_PORT with its stand-ins (scripts/local-shop.ts), as Hosting's
 * rewrite serves it in production; its output goes to LOCAL_API_LOG. Resolves once it answers.
 */
export async function startLocalShop(siteUrl: string, options: { postgres?: boolean } = {}): Promise<ChildProcess> {
  mkdirSync(dirname(LOCAL_API_LOG), { recursive: true });
  const log = openSync(LOCAL_API_LOG, 'w');
  const args = [
    'scripts/local-shop.ts',
    '--port',
    String(LOCAL_API_PORT),
    '--site-url',
    siteUrl,
    ...(options.postgres ? ['--postgres'] : []),
  ];
  const shop = spawn(process.execPath, args, { stdio: ['ignore', log, log] });
  process.on('exit', () => shop.kill());
  const deadline = Date.now() + 60_000;
  while (
    !(await fetch(`${LOCAL_API_BASE_URL}/regions`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (shop.exitCode !== null || Date.now() > deadline) throw new Error(`The local shop API did not start: see ${LOCAL_API_LOG}`);
    await new Promise((done) => setTimeout(done, 250));
  }
  return shop;
}

/** Starts the Auth and Hosting emulators (about 20 s until ready) for project demo-esim, offline. */
export function startEmulators(hostingPort: number): ChildProcess {
  const config = writeLocalConfig(hostingPort);
  return spawn('firebase', ['emulators:start', '--only', 'auth,hosting', '--project', 'demo-esim', '--config', config], {
    stdio: ['ignore', 'inherit', 'inherit'],
    // CI=true skips firebase-tools' update check and news, which would wait on the closed network.
    env: { ...process.env, CI: 'true' },
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { addSources, readFirebaseConfig } from './csp.ts';

/**
 * The Firebase emulators this project runs locally and in tests: Auth (accounts) and Hosting
 * (the built site with firebase.json's headers, clean URLs and 404 page).
 *
 * firebase.json is the deployment's configuration. Locally the pages talk to the Auth emulator
 * on 127.0.0.1, which the production Content-Security-Policy rightly does not allow, so the
 * emulators run from a copy that adds exactly that origin and nothing else.
 */
const LOCAL_CONFIG = 'firebase.local.json';

function writeLocalConfig(hostingPort: number): string {
  const config = readFirebaseConfig();
  const authEmulator = `http://${config.emulators.auth.host}:${config.emulators.auth.port}`;
  for (const header of config.hosting.headers.flatMap((rule) => rule.headers)) {
    if (header.key === 'Content-Security-Policy') {
      header.value = addSources(header.value, { 'connect-src': [authEmulator], 'frame-src': [authEmulator] });
    }
  }
  config.emulators.hosting.port = hostingPort;
  writeFileSync(LOCAL_CONFIG, JSON.stringify(config, null, 2) + '\n');
  return LOCAL_CONFIG;
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

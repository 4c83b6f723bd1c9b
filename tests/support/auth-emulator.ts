import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * Vitest global setup: the real Firebase Auth emulator for the shop API's tests, on ports of its
 * own (Playwright's run uses 9099 and the hub's defaults), started once per run (about 6 s).
 */
export const AUTH_EMULATOR_HOST = '127.0.0.1:9199';
export const DEMO_PROJECT = 'demo-esim';

declare module 'vitest' {
  export interface ProvidedContext {
    authEmulatorHost: string;
  }
}

export default async function setup(project: TestProject) {
  const folder = mkdtempSync(join(tmpdir(), 'auth-emulator-'));
  const [host, port] = AUTH_EMULATOR_HOST.split(':');
  const config = {
    emulators: { auth: { host, port: Number(port) }, hub: { port: 4410 }, logging: { port: 4510 }, ui: { enabled: false }, singleProjectMode: true },
  };
  writeFileSync(join(folder, 'firebase.json'), JSON.stringify(config));
  const emulator = spawn('firebase', ['emulators:start', '--only', 'auth', '--project', DEMO_PROJECT, '--config', join(folder, 'firebase.json')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, CI: 'true' },
    detached: true,
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (emulator.exitCode !== null) throw new Error(`The Auth emulator exited with ${emulator.exitCode}`);
    if (await fetch(`http://${AUTH_EMULATOR_HOST}/`).then(() => true, () => false)) break;
    if (Date.now() > deadline) throw new Error('The Auth emulator did not start within 90 s');
    await new Promise((done) => setTimeout(done, 300));
  }
  project.provide('authEmulatorHost', AUTH_EMULATOR_HOST);
  return () => {
    // The whole group: firebase-tools starts the emulator as a child of its own.
    try {
      process.kill(-emulator.pid!, 'SIGINT');
    } catch {}
    rmSync(folder, { recursive: true, force: true });
  };
}

/** A new account on the emulator and its ID token, as the site's sign-up gets them. */
export async function signUp(email = `buyer-${crypto.randomUUID()}@example.test`): Promise<{ uid: string; idToken: string; email: string }> {
  const response = await fetch(`http://${AUTH_EMULATOR_HOST}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct-horse-42', returnSecureToken: true }),
  });
  if (!response.ok) throw new Error(`signUp: ${response.status} ${await response.text()}`);
  const { localId, idToken } = (await response.json()) as { localId: string; idToken: string };
  return { uid: localId, idToken, email };
}

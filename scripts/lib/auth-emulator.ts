import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

/**
 * A real Firebase Auth emulator of its own, on free ports (the site's emulators use 9099 and the
 * hub's defaults), for the shop API's tests and benchmark: about 6 s to start.
 */

/** `nice`: the emulator's CPU priority (and its Java child's, which inherits it), for the benchmarks. */
export async function startAuthEmulator({ nice = 0 }: { nice?: number } = {}): Promise<{ host: string; stop(): void }> {
  const folder = mkdtempSync(join(tmpdir(), 'auth-emulator-'));
  const [port, hub, logging] = [await freePort(), await freePort(), await freePort()];
  const host = `127.0.0.1:${port}`;
  const config = {
    emulators: {
      auth: { host: '127.0.0.1', port },
      hub: { host: '127.0.0.1', port: hub },
      logging: { host: '127.0.0.1', port: logging },
      ui: { enabled: false },
      singleProjectMode: true,
    },
  };
  writeFileSync(join(folder, 'firebase.json'), JSON.stringify(config));
  const emulator = spawn(
    'firebase',
    ['emulators:start', '--only', 'auth', '--project', 'demo-esim', '--config', join(folder, 'firebase.json')],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      // CI=true skips firebase-tools' update check and news, which would wait on the closed network.
      env: { ...process.env, CI: 'true' },
      detached: true,
    },
  );
  // Before firebase-tools starts Java, which inherits it.
  if (nice) setPriority(emulator.pid!, nice);
  const stop = () => {
    // The whole group: firebase-tools runs the emulator as a child of its own.
    try {
      process.kill(-emulator.pid!, 'SIGINT');
    } catch {}
    rmSync(folder, { recursive: true, force: true });
  };
  process.on('exit', stop);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (emulator.exitCode !== null) throw new Error(`The Auth emulator exited with ${emulator.exitCode}`);
    if (
      await fetch(`http://${host}/`).then(
        () => true,
        () => false,
      )
    )
      return { host, stop };
    if (Date.now() > deadline) {
      stop();
      throw new Error('The Auth emulator did not start within 90 s');
    }
    await new Promise((done) => setTimeout(done, 300));
  }
}

/** The password of every account signUpOn makes (a buyer signing in through the login page types it). */
export const PASSWORD = 'correct-horse-42';

/** One Identity Toolkit call to the emulator; `owner` is the emulator's admin credential. */
async function identityToolkit<T>(host: string, call: string, body: object, owner = false): Promise<T> {
  const response = await fetch(`http://${host}/identitytoolkit.googleapis.com/v1/${call}?key=demo-key`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(owner && { Authorization: 'Bearer owner' }) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${call}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * A new account on the emulator and its ID token, as the site's sign-up gets them: the address not
 * verified. With `emailVerified`, as after the confirmation link was opened and the buyer signed in
 * again (the token says email_verified).
 */
export async function signUpOn(
  host: string,
  email = `buyer-${crypto.randomUUID()}@example.test`,
  { emailVerified = false }: { emailVerified?: boolean } = {},
): Promise<{ uid: string; idToken: string; refreshToken: string; email: string }> {
  const { localId, idToken, refreshToken } = await identityToolkit<Session>(host, 'accounts:signUp', {
    email,
    password: PASSWORD,
    returnSecureToken: true,
  });
  if (!emailVerified) return { uid: localId, idToken, refreshToken, email };
  await identityToolkit(host, 'accounts:update', { localId, emailVerified: true }, true);
  const signedIn = await signInOn(host, email);
  return { uid: localId, idToken: signedIn.idToken, refreshToken: signedIn.refreshToken, email };
}

type Session = { localId: string; idToken: string; refreshToken: string };

/**
 * The back office's role claim on an emulator account (what `npm run ops:grant` sets through
 * firebase-admin), by the emulator's admin credential; it reaches an ID token at the next sign-in.
 */
export async function grantRoleOn(host: string, uid: string, role: 'support' | 'admin'): Promise<void> {
  await identityToolkit(host, 'accounts:update', { localId: uid, customAttributes: JSON.stringify({ role }) }, true);
}

/** A new sign-in with the password of an account made by signUpOn, as the site's login does it (a disabled account is refused). */
export async function signInOn(host: string, email: string): Promise<{ uid: string; idToken: string; refreshToken: string }> {
  const { localId, idToken, refreshToken } = await identityToolkit<Session>(host, 'accounts:signInWithPassword', {
    email,
    password: PASSWORD,
    returnSecureToken: true,
  });
  return { uid: localId, idToken, refreshToken };
}

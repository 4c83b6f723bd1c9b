import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Chromium, which the browser tests drive (a downloaded browser cannot be fetched here). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Installs Debian's chromium package when it is missing and we may (root with apt-get). */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  const canInstall = process.getuid?.() === 0 && spawnSync('which', ['apt-get']).status === 0;
  if (!canInstall) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. Install Debian's chromium package (apt-get install -y chromium) or set CHROMIUM_PATH.`,
    );
  }
  console.log('Installing Debian chromium for the browser tests (about 90 s, once)...');
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    const { status } = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (status !== 0) throw new Error(`apt-get ${args.join(' ')} failed with status ${status}`);
  }
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium installed but ${CHROMIUM_PATH} is missing`);
}

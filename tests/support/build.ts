import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * A real `astro build` in a child process with extra environment variables, into a temporary
 * folder (never dist/). Call removeBuilds() after the tests.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const ASTRO = join(ROOT, 'node_modules/astro/bin/astro.mjs');
const outDirs: string[] = [];

/**
 * One build of this checkout at a time, across the test files the site project runs side by side:
 * every build also writes the project's own `.astro/` and Astro's cache under node_modules, which
 * two builds at once could leave half written for each other. A folder made with mkdir is the lock
 * (made or not, atomically); it names its process, so a lock left by a process that died is taken.
 */
const LOCK = join(tmpdir(), `esim-storefront-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);

function lockIsStale(): boolean {
  try {
    const pid = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ESRCH: no such process. ENOENT: no pid yet, which is only stale once the folder is old.
    if (code === 'ESRCH') return true;
    if (code === 'ENOENT') {
      try {
        return Date.now() - statSync(LOCK).mtimeMs > 10_000;
      } catch {
        return false;
      }
    }
    return false;
  }
}

async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockIsStale()) rmSync(LOCK, { recursive: true, force: true });
      else await new Promise((done) => setTimeout(done, 200));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

export function build(env: Record<string, string>): Promise<{ status: number | null; output: string; outDir: string }> {
  const outDir = mkdtempSync(join(tmpdir(), 'esim-build-'));
  outDirs.push(outDir);
  return oneAtATime(
    () =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [ASTRO, 'build'], {
          env: { ...process.env, ...env, ASTRO_OUT_DIR: outDir, ASTRO_TELEMETRY_DISABLED: '1' },
        });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('close', (status) => resolve({ status, output, outDir }));
      }),
  );
}

export const removeBuilds = () => outDirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));

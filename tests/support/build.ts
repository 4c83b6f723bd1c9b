import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real `astro build` in a child process with extra environment variables, into a temporary
 * folder (never dist/). Call removeBuilds() after the tests.
 */
const ASTRO = join(import.meta.dirname, '../../node_modules/astro/bin/astro.mjs');
const outDirs: string[] = [];

export function build(env: Record<string, string>): Promise<{ status: number | null; output: string; outDir: string }> {
  const outDir = mkdtempSync(join(tmpdir(), 'esim-build-'));
  outDirs.push(outDir);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ASTRO, 'build'], {
      env: { ...process.env, ...env, ASTRO_OUT_DIR: outDir, ASTRO_TELEMETRY_DISABLED: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (status) => resolve({ status, output, outDir }));
  });
}

export const removeBuilds = () => outDirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));

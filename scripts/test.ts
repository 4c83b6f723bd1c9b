// The whole test suite: build, type check, unit and site checks (Vitest), browser tests (Playwright).
// Ends with one line "N passed, N failed" that adds up every suite, and a non-zero exit on failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { ensureChromium } from './lib/chromium.ts';
import { failedPlaywrightTests, passedOnlyOnRetry, type PlaywrightReport } from './lib/playwright-report.ts';
import { failedVitestTests, vitestPassedOnlyOnRetry, type VitestReport } from './lib/vitest-report.ts';

const REPORTS = 'reports';
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });
const env = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };

interface Tally {
  suite: string;
  passed: number;
  failed: number;
}
const tallies: Tally[] = [];
/** How long each command took: printed at the end, so a suite that grows shows before CI's limit does. */
const timings: { command: string; seconds: number }[] = [];
const started = Date.now();

function run(command: string, args: string[], extraEnv: Record<string, string> = {}): number {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  const start = Date.now();
  const { status, error } = spawnSync(command, args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
  timings.push({ command: `${command} ${args[0] ?? ''}`.trim(), seconds: (Date.now() - start) / 1000 });
  if (error) console.error(error);
  return status ?? 1;
}

function readJson<T>(file: string): T | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

const passedOnRetry: string[] = [];
/** Every failed test by name, printed last: CI shows only the end of the output. */
const failedTests: string[] = [];

function finish(): never {
  if (passedOnRetry.length > 0) {
    // A pass on retry hides a defect in the product or the test: name each one, every run.
    console.log(`\nPassed only on retry: ${passedOnRetry.length}`);
    for (const name of passedOnRetry) console.log(`  ${name}`);
  }
  if (failedTests.length > 0) {
    console.log(`\nFailed: ${failedTests.length}`);
    for (const name of failedTests) console.log(`  ${name}`);
  }
  const passed = tallies.reduce((n, t) => n + t.passed, 0);
  const failed = tallies.reduce((n, t) => n + t.failed, 0);
  console.log('\nTimes:');
  for (const t of timings) console.log(`  ${t.command.padEnd(20)} ${t.seconds.toFixed(0).padStart(5)} s`);
  console.log(`  ${'all'.padEnd(20)} ${((Date.now() - started) / 1000).toFixed(0).padStart(5)} s`);
  console.log('\nSuites:');
  for (const t of tallies) console.log(`  ${t.suite.padEnd(12)} ${t.passed} passed, ${t.failed} failed`);
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

/** A step that is one check: it passes when its command exits 0. */
function step(suite: string, command: string, args: string[]): boolean {
  const ok = run(command, args) === 0;
  tallies.push({ suite, passed: ok ? 1 : 0, failed: ok ? 0 : 1 });
  return ok;
}

// 1. The build itself is the first check: a broken build fails loudly and stops the run.
if (!step('build', 'astro', ['build'])) finish();

// 2. Types: astro check over .astro, .ts and .tsx (strict tsconfig).
step('typecheck', 'astro', ['check']);

// 2b. Lint and format: ESLint's errors (TypeScript, React hooks, accessibility) and files Prettier would change.
step('lint', 'eslint', ['.']);
step('format', 'prettier', ['--check', '.']);

// 3. Vitest: unit tests, the translation check, and the checks over dist/ (HTML, head, sitemap, links).
const vitestJson = `${REPORTS}/vitest.json`;
const vitestStatus = run('vitest', ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
const vitest = readJson<VitestReport>(vitestJson);
if (vitest) {
  failedTests.push(...failedVitestTests(vitest, process.cwd()));
  passedOnRetry.push(...vitestPassedOnlyOnRetry(vitest, process.cwd()));
}
tallies.push({
  suite: 'vitest',
  passed: vitest?.numPassedTests ?? 0,
  failed: vitest ? vitest.numFailedTests + (vitestStatus !== 0 && vitest.numFailedTests === 0 ? 1 : 0) : 1,
});

// 4. Playwright: end-to-end and accessibility tests in Debian's Chromium against the built site.
ensureChromium();
const playwrightJson = `${REPORTS}/playwright.json`;
const playwrightStatus = run('playwright', ['test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_FILE: playwrightJson });
const playwright = readJson<PlaywrightReport>(playwrightJson);
if (playwright) {
  passedOnRetry.push(...passedOnlyOnRetry(playwright));
  failedTests.push(...failedPlaywrightTests(playwright));
}
tallies.push({
  suite: 'playwright',
  passed: playwright ? playwright.stats.expected + playwright.stats.flaky : 0,
  failed: playwright ? playwright.stats.unexpected + (playwrightStatus !== 0 && playwright.stats.unexpected === 0 ? 1 : 0) : 1,
});

finish();

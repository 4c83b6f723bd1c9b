import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failedVitestTests, vitestPassedOnlyOnRetry, type VitestReport } from './vitest-report.ts';

// Vitest's own command line (its package exports do not list it).
const vitestCli = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

describe("npm test's closing lists of failed Vitest tests and those that passed only on retry", () => {
  it('names a failed test with its error, a file that failed in a hook, and a test that passed only on its retry, from a real Vitest run', () => {
    // The report goes to a file, as npm test asks for it: Vitest prints more than JSON on stdout.
    const file = join(mkdtempSync(join(tmpdir(), 'vitest-report-')), 'report.json');
    const run = spawnSync(
      process.execPath,
      [vitestCli, 'run', '--config', 'tests/fixtures/failing/vitest.config.ts', '--reporter=json', `--outputFile.json=${file}`],
      { encoding: 'utf8' },
    );
    expect(run.status).not.toBe(0);
    const report = JSON.parse(readFileSync(file, 'utf8')) as VitestReport;
    expect(report).toMatchObject({ numPassedTests: 2, numFailedTests: 1 });
    const root = join(process.cwd(), 'tests/fixtures/failing');
    expect(vitestPassedOnlyOnRetry(report, root)).toEqual(['passes-on-retry.fixture.ts › passes on its retry']);
    const failed = failedVitestTests(report, root);
    expect(failed.sort()).toEqual([
      'a-hook-fails.fixture.ts: the database did not open',
      expect.stringMatching(/^a-test-fails\.fixture\.ts › a group fails: AssertionError: expected 2 to be 3/),
    ]);
    // A real Vitest run: seconds on a busy machine, past Vitest's 5 s default.
  }, 60_000);
});

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { passedOnlyOnRetry, type PlaywrightReport } from './playwright-report.ts';

const playwrightCli = createRequire(import.meta.url).resolve('@playwright/test/cli');

describe("npm test's list of tests that passed only on retry", () => {
  it('names a test that failed and then passed on its retry, and no other, from a real Playwright run', () => {
    const run = spawnSync(
      process.execPath,
      [playwrightCli, 'test', '--config', 'tests/fixtures/retry/playwright.config.ts', '--retries=1', '--reporter=json'],
      { encoding: 'utf8', env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_FILE: '', CI: '' } },
    );
    const report = JSON.parse(run.stdout) as PlaywrightReport;
    expect(report.stats).toMatchObject({ expected: 1, flaky: 1, unexpected: 0 });
    expect(passedOnlyOnRetry(report)).toEqual(['retry.spec.ts:6 › a group › fails first, passes on retry']);
    // A real Playwright run of two tests: seconds on a busy machine, past Vitest's 5 s default.
  }, 60_000);
});

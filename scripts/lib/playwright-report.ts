// Reading Playwright's JSON report (its `json` reporter) for the closing summary of `npm test`.

/** The parts of Playwright's JSON report read here: suites nest, each spec holds one test per project. */
export interface PlaywrightSuite {
  title: string;
  specs?: { title: string; file: string; line: number; tests: { status: string }[] }[];
  suites?: PlaywrightSuite[];
}
export interface PlaywrightReport {
  stats: { expected: number; unexpected: number; flaky: number };
  suites: PlaywrightSuite[];
}

/** 'file:line › describe › title' of every test whose outcome is `status` ('flaky', 'unexpected'). */
function testsWithStatus(report: PlaywrightReport, status: 'flaky' | 'unexpected'): string[] {
  const walk = (suite: PlaywrightSuite, titles: string[]): string[] => [
    ...(suite.specs ?? [])
      .filter((spec) => spec.tests.some((test) => test.status === status))
      .map((spec) => [`${spec.file}:${spec.line}`, ...titles, spec.title].join(' › ')),
    ...(suite.suites ?? []).flatMap((child) => walk(child, [...titles, child.title])),
  ];
  // The top-level suites are the files, already named by file:line.
  return report.suites.flatMap((file) => walk(file, []));
}

/** Every test that failed first and passed on a retry. */
export const passedOnlyOnRetry = (report: PlaywrightReport): string[] => testsWithStatus(report, 'flaky');

/** Every test that failed on all its tries. */
export const failedPlaywrightTests = (report: PlaywrightReport): string[] => testsWithStatus(report, 'unexpected');

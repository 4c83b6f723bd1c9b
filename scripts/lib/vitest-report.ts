// Reading Vitest's JSON report (its `json` reporter) for the closing summary of `npm test`: CI shows
// only the end of a run's output, so a failure must be named there, not 20,000 lines earlier.

export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

const firstLine = (text: string | undefined): string => (text ?? '').trim().split('\n')[0]!.slice(0, 300);

const relative = (name: string, root: string) => (name.startsWith(root) ? name.slice(root.length + 1) : name);

/** 'file › test' for each test that failed first and passed on its retry (it passed with an error on record). */
export function vitestPassedOnlyOnRetry(report: VitestReport, root: string): string[] {
  return report.testResults.flatMap((file) =>
    file.assertionResults
      .filter((test) => test.status === 'passed' && (test.failureMessages?.length ?? 0) > 0)
      .map((test) => `${relative(file.name, root)} › ${test.fullName}`),
  );
}

/** 'file › test: first line of its error' for each failed test, and each file that failed outside a test (a hook). */
export function failedVitestTests(report: VitestReport, root: string): string[] {
  return report.testResults.flatMap((file) => {
    const name = relative(file.name, root);
    const failed = file.assertionResults
      .filter((test) => test.status === 'failed')
      .map((test) => `${name} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (failed.length === 0 && file.status === 'failed') return [`${name}: ${firstLine(file.message)}`];
    return failed;
  });
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { CHROMIUM_PATH } from './chromium.ts';
import { QUIET_CHROMIUM_ARGS } from './loaded-weight.ts';

export const LIGHTHOUSE_CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
export type LighthouseCategory = (typeof LIGHTHOUSE_CATEGORIES)[number];

export interface LighthouseResult {
  url: string;
  /** 0 to 1; null when Lighthouse could not score the category. */
  scores: Record<LighthouseCategory, number | null>;
  lcpMs: number | null;
  tbtMs: number | null;
  cls: number | null;
  /** Audits of scored categories that did not pass, with their score: what to fix first. */
  failing: { id: string; title: string; score: number }[];
  /** Where to look: the LCP element, what shifted, what the console reported. */
  evidence: string[];
  runtimeError?: string | undefined;
  warnings: string[];
  /** The full report, written beside the benchmark's JSON. */
  report?: string | undefined;
}

/**
 * Debian's Chromium for Lighthouse: headless, and --no-sandbox because we run as root and
 * Lighthouse (unlike Playwright) does not add it. English UI, so unprefixed pages do not
 * auto-detect another language and redirect.
 */
export function launchLighthouseChrome(): Promise<chromeLauncher.LaunchedChrome> {
  return chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--lang=en-US', ...QUIET_CHROMIUM_ARGS],
    logLevel: 'silent',
  });
}

/**
 * One Lighthouse 13 run with its default configuration (mobile: Moto G Power emulation, simulated
 * slow 4G and 4x CPU slowdown), the four categories DESIGN 3 budgets. Writes the JSON report to
 * `reportFile` when given.
 */
export async function runLighthouse(port: number, url: string, reportFile?: string): Promise<LighthouseResult> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...LIGHTHOUSE_CATEGORIES] });
  if (!result) throw new Error(`Lighthouse returned no result for ${url}`);
  const { lhr } = result;
  if (reportFile) {
    mkdirSync(join(reportFile, '..'), { recursive: true });
    writeFileSync(reportFile, typeof result.report === 'string' ? result.report : JSON.stringify(lhr));
  }
  const numeric = (id: string) => lhr.audits[id]?.numericValue ?? null;
  const scored = new Set(
    LIGHTHOUSE_CATEGORIES.flatMap((category) =>
      (lhr.categories[category]?.auditRefs ?? []).filter((ref) => ref.weight > 0).map((ref) => ref.id),
    ),
  );
  return {
    url,
    scores: Object.fromEntries(LIGHTHOUSE_CATEGORIES.map((category) => [category, lhr.categories[category]?.score ?? null])) as Record<
      LighthouseCategory,
      number | null
    >,
    lcpMs: numeric('largest-contentful-paint'),
    tbtMs: numeric('total-blocking-time'),
    cls: numeric('cumulative-layout-shift'),
    failing: Object.values(lhr.audits)
      .filter((audit) => scored.has(audit.id) && typeof audit.score === 'number' && audit.score < 1)
      .map((audit) => ({ id: audit.id, title: audit.title, score: audit.score! })),
    evidence: evidence(lhr),
    runtimeError: lhr.runtimeError?.message,
    warnings: lhr.runWarnings ?? [],
    report: reportFile,
  };
}

interface AuditItem {
  node?: { selector?: string; nodeLabel?: string };
  score?: number;
  description?: string;
  url?: string;
  sourceLocation?: { url?: string };
}

/** The facts behind the usual suspects, read from the report's audit details. */
export function evidence(lhr: { audits: Record<string, { details?: unknown }> }): string[] {
  const items = (id: string) => (lhr.audits[id]?.details as { items?: AuditItem[] } | undefined)?.items ?? [];
  const label = (node: AuditItem['node']) => `${node?.selector ?? '?'} ("${(node?.nodeLabel ?? '').replace(/\s+/g, ' ').slice(0, 50)}")`;
  const facts: string[] = [];
  const lcp = items('lcp-breakdown-insight').find((item) => (item as { type?: string }).type === 'node') as AuditItem['node'] | undefined;
  if (lcp) facts.push(`LCP element ${label(lcp)}`);
  for (const shift of items('layout-shifts')) {
    if (shift.node) facts.push(`layout shift ${(shift.score ?? 0).toFixed(3)} of ${label(shift.node)}`);
  }
  for (const error of items('errors-in-console')) {
    facts.push(`console: ${error.description ?? '?'}${error.sourceLocation?.url ? ` (${error.sourceLocation.url})` : ''}`);
  }
  return facts;
}

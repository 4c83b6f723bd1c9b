// The bench's report (scripts/bench.ts measures): its figures judged against DESIGN 3's budgets
// as table rows, the notes a reader needs beside them, the comparison with an earlier report, and
// the printing. Kept apart so the measuring reads on its own.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Locale } from '../../src/i18n/locales.ts';
import type { Precache } from './precache.ts';
import type { DeliveryFigures } from './delivery-bench.ts';
import type { LoadedWeight } from './loaded-weight.ts';
import { LIGHTHOUSE_CATEGORIES, type LighthouseResult } from './lighthouse-run.ts';
import { BEFORE_CURRENCIES, BUDGETS, pageWeight, type Sizes } from './page-weight.ts';
import { describeCpu, type ShopFigures } from './shop-bench.ts';

/** The page types of DESIGN 3 and which JavaScript budget each answers to. */
export type JsBudget = 'content' | 'account' | 'checkout' | 'page';
export const PAGE_TYPES: { name: string; path: string; js: JsBudget }[] = [
  { name: 'home', path: '/', js: 'page' },
  { name: 'store', path: '/store', js: 'page' },
  { name: 'package', path: '/package/de', js: 'page' },
  { name: 'faq', path: '/faq', js: 'content' },
  { name: 'legal', path: '/terms-conditions', js: 'content' },
  { name: 'support', path: '/support', js: 'content' },
  { name: 'login', path: '/login', js: 'account' },
  { name: 'profile', path: '/profile', js: 'account' },
  { name: 'checkout', path: '/checkout?plan=de-1gb-7d', js: 'checkout' },
  { name: 'payment-success', path: '/payment-success?order=00000000-0000-4000-8000-000000000000', js: 'checkout' },
  { name: 'my-esim', path: '/my-esim', js: 'account' },
];

export interface BuildFigures {
  built: boolean;
  seconds: number | null;
  pages: number;
}

export interface PageFigures extends LoadedWeight {
  name: string;
  path: string;
  consent: boolean;
}

export interface LighthouseFigures extends LighthouseResult {
  page: string;
  locale: Locale;
  path: string;
  /** Performance score of every run when --runs > 1 (the median run is the one reported). */
  performanceRuns: (number | null)[];
}

/** 'ok', or what is wrong: OVER (bytes, seconds), LOW (scores), ERROR; 'missing' when there is nothing to measure. */
type Mark = string;
export interface Row {
  figure: string;
  value: string;
  budget: string;
  mark: Mark;
}
/** A row that is only a heading. */
const section = (title: string): Row => ({ figure: title, value: '', budget: '', mark: '' });

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const overMark = (value: number, budget: number): Mark => (value <= budget ? 'ok' : 'OVER');

/**
 * DESIGN 3's JavaScript budgets: a content page once consent is stored 10 KB; a first visit with
 * the cookie banner 70 KB (held for every other page and state, which loads no more than a first
 * visit); login 120 KB, held for the other account page too (profile loads the same Firebase).
 */
function jsBudget(page: PageFigures): { bytes: number; label: string } {
  const kind = PAGE_TYPES.find((type) => type.name === page.name)!.js;
  if (kind === 'account') return { bytes: BUDGETS.loginPageJsBrotli, label: 'account page' };
  if (kind === 'checkout') return { bytes: BUDGETS.checkoutPageJsBrotli, label: 'checkout page' };
  if (kind === 'content' && page.consent) return { bytes: BUDGETS.contentPageJsBrotli, label: 'content page' };
  return { bytes: BUDGETS.firstVisitJsBrotli, label: 'first visit' };
}

const sizeValue = (s: Sizes) => `${kb(s.raw).padStart(8)} ${kb(s.gzip).padStart(8)} ${kb(s.brotli).padStart(8)}`;

function weightRows(pages: PageFigures[]): Row[] {
  const rows: Row[] = [
    section('Bytes Chromium loads from the site: a first visit, and one with the cookie consent stored'),
    {
      figure: `${'page'.padEnd(24)} ${'visit'.padEnd(7)} kind`,
      value: `${'raw'.padStart(8)} ${'gzip'.padStart(8)} ${'brotli'.padStart(8)}`,
      budget: '',
      mark: '',
    },
  ];
  for (const page of pages) {
    const label = `${`${page.name} ${page.path}`.padEnd(24)} ${(page.consent ? 'consent' : 'first').padEnd(7)}`;
    const html: Row = { figure: `${label} HTML`, value: sizeValue(page.html), budget: '', mark: '' };
    if (page.name === 'package') {
      html.budget = `br <= ${kb(BUDGETS.packagePageHtmlBrotli)} (package page)`;
      html.mark = overMark(page.html.brotli, BUDGETS.packagePageHtmlBrotli);
    }
    const budget = jsBudget(page);
    const js: Row = {
      figure: `${label} JS`,
      value: sizeValue(page.js),
      budget: `br <= ${kb(budget.bytes)} (${budget.label})`,
      mark: overMark(page.js.brotli, budget.bytes),
    };
    const css: Row = { figure: `${label} CSS`, value: sizeValue(page.css), budget: '', mark: '' };
    rows.push(html, js, css);
  }
  return rows;
}

function buildRows(figures: BuildFigures): Row[] {
  return [
    section('Build'),
    figures.seconds === null
      ? { figure: 'astro build wall time', value: 'not built (--no-build)', budget: `<= ${BUDGETS.buildSeconds} s`, mark: '' }
      : {
          figure: 'astro build wall time',
          value: `${figures.seconds.toFixed(1)} s`,
          budget: `<= ${BUDGETS.buildSeconds} s`,
          mark: overMark(figures.seconds, BUDGETS.buildSeconds),
        },
    { figure: 'pages built (HTML files)', value: figures.pages.toLocaleString('en'), budget: '', mark: '' },
  ];
}

function precacheRows(figures: Precache): Row[] {
  const rows = [section('Service worker')];
  if (!figures.present) {
    rows.push({ figure: 'precache (sw.js)', value: 'no sw.js in the build', budget: `raw <= ${kb(BUDGETS.precacheRaw)}`, mark: 'missing' });
  } else {
    rows.push({
      figure: `precache, ${figures.entries} entries${figures.missing.length ? `, ${figures.missing.length} not in the build` : ''}`,
      value: `${kb(figures.raw).padStart(9)} raw`,
      budget: `raw <= ${kb(BUDGETS.precacheRaw)}`,
      mark: figures.missing.length ? 'ERROR' : overMark(figures.raw, BUDGETS.precacheRaw),
    });
  }
  return rows;
}

const SHORT: Record<string, string> = { performance: 'perf', accessibility: 'a11y', 'best-practices': 'bp', seo: 'seo' };
const score = (value: number | null) => (value === null ? '--' : value.toFixed(2));
/** Lighthouse columns: the four scores, then LCP, TBT and CLS. */
const lighthouseValue = (cells: string[]) => cells.map((cell, index) => cell.padStart(index < 4 ? 4 : index === 6 ? 6 : 8)).join(' ');

function lighthouseRows(results: LighthouseFigures[], runs: number): Row[] {
  const rows = [
    section(`Lighthouse 13, mobile defaults${runs > 1 ? `, median of ${runs} runs` : ''}, first visit`),
    {
      figure: 'language page',
      value: lighthouseValue([...LIGHTHOUSE_CATEGORIES.map((c) => SHORT[c]!), 'LCP', 'TBT', 'CLS']),
      budget: '',
      mark: '',
    },
  ];
  const budget = `perf >= ${BUDGETS.lighthouse.performance}, others = 1`;
  for (const result of results) {
    const low = LIGHTHOUSE_CATEGORIES.filter((category) => (result.scores[category] ?? -1) < BUDGETS.lighthouse[category]);
    rows.push({
      figure: `${result.locale.padEnd(8)} ${result.page} ${result.path}`,
      value: lighthouseValue([
        ...LIGHTHOUSE_CATEGORIES.map((category) => score(result.scores[category])),
        result.lcpMs === null ? '--' : `${(result.lcpMs / 1000).toFixed(1)} s`,
        result.tbtMs === null ? '--' : `${Math.round(result.tbtMs)} ms`,
        result.cls === null ? '--' : result.cls.toFixed(3),
      ]),
      budget,
      mark: result.runtimeError ? 'ERROR' : low.length ? `LOW ${low.map((c) => SHORT[c]).join(',')}` : 'ok',
    });
  }
  return rows;
}

function shopRows(figures: ShopFigures): Row[] {
  const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : '--');
  const perSecond = (value: number) => `${value.toLocaleString('en')} /s`;
  const atLeast = (value: number, goal: number): Mark => (value >= goal ? 'ok' : 'LOW');
  const run = figures.orders;
  // Reports from before issue 31 have one run and no load.
  const orderRuns = figures.orderRuns ?? [run];
  const load = (value: number | undefined) => (value === undefined ? '' : ` (load ${value.toFixed(2)})`);
  const failed = run.non2xx + run.errors + (run.planned - run.sent);
  const statuses = Object.entries(run.statuses)
    .map(([status, n]) => `${n}x${status}`)
    .join(', ');
  return [
    section(
      `Shop API on PostgreSQL, loopback: POST /orders arriving at a fixed ${run.rate}/s for ${run.seconds} s (open loop; the median of ` +
        `${orderRuns.length} runs by own p99; ${figures.buyers.toLocaleString('en')} buyers in all, ${figures.ordersPerBuyer} orders at most each); ` +
        `reads at 50 connections; "load" is the machine's 1-minute load average at a run's end (2 cores: others' work shows in it)`,
    ),
    {
      figure: "POST /orders p50, the API's own share (Stripe and accounts lookup excluded)",
      value: ms(run.ownP50Ms),
      budget: '',
      mark: '',
    },
    {
      figure: "POST /orders p99, the API's own share (Stripe and accounts lookup excluded)",
      value: `${ms(run.ownP99Ms)}${load(run.load1)}`,
      budget: `<= ${BUDGETS.ordersP99Ms} ms at ${run.rate}/s`,
      mark: Number.isFinite(run.ownP99Ms) ? overMark(run.ownP99Ms, BUDGETS.ordersP99Ms) : 'ERROR',
    },
    {
      figure: `POST /orders own p99 of each run at ${run.rate}/s`,
      value: orderRuns.map((r) => `${ms(r.ownP99Ms)}${r.stopped ? ' stopped' : ''}${load(r.load1)}`).join(', '),
      budget: '',
      mark: '',
    },
    {
      figure: 'POST /orders p50 / p99, whole round trip (Stripe stand-in included)',
      value: `${ms(run.totalP50Ms)} / ${ms(run.totalP99Ms)}`,
      budget: '',
      mark: '',
    },
    {
      figure: 'POST /orders created / non-2xx / errors',
      value: `${run.created.toLocaleString('en')} / ${run.non2xx}${statuses ? ` (${statuses})` : ''} / ${run.errors}${run.stopped ? `; ${run.stopped}` : ''}`,
      budget: 'none fails',
      mark: failed ? 'ERROR' : 'ok',
    },
    ...(run.apiCpuMsPerOrder === null
      ? []
      : [
          {
            figure: 'POST /orders CPU time an order: API process / PostgreSQL (steadier than latency)',
            value: `${ms(run.apiCpuMsPerOrder)} / ${ms(run.postgresCpuMsPerOrder!)}`,
            budget: '',
            mark: '',
          },
        ]),
    ...(run.transactionsPerOrder === null
      ? []
      : [
          {
            figure: 'POST /orders PostgreSQL transactions an order (background jobs included)',
            value: run.transactionsPerOrder.toFixed(1),
            budget: '',
            mark: '',
          },
        ]),
    {
      figure: 'POST /orders sender behind schedule, p99 / max',
      value: `${ms(run.sendLagP99Ms)} / ${ms(run.sendLagMaxMs)}`,
      budget: '',
      mark: '',
    },
    ...(run.cpu
      ? [{ figure: "POST /orders CPUs meanwhile (others' work makes it noisy)", value: describeCpu(run.cpu), budget: '', mark: '' }]
      : []),
    {
      figure: `POST /orders saturation rate (own p99 <= ${BUDGETS.ordersP99Ms} ms, none fails; the median)`,
      value: figures.saturationRate
        ? perSecond(figures.saturationRate)
        : `under ${Math.min(...figures.saturationRuns.map((r) => r.rate))} /s`,
      budget: 'goal 300 /s (issue 31)',
      mark: '',
    },
    ...(figures.saturationRates
      ? [
          {
            figure: '  each repetition of the ladder',
            value: figures.saturationRates.map((r) => `${perSecond(r.rate)}${load(r.load1)}`).join(', '),
            budget: '',
            mark: '',
          },
        ]
      : []),
    ...figures.saturationRuns.map((step) => ({
      figure: `  at ${step.rate}/s for ${step.seconds} s: own p50 / p99, failed`,
      value: `${ms(step.ownP50Ms)} / ${ms(step.ownP99Ms)}, ${step.non2xx + step.errors + (step.planned - step.sent)}${step.held ? '' : ' (not held)'}${load(step.load1)}`,
      budget: '',
      mark: '',
    })),
    {
      figure: 'GET /countries?lang=ja',
      value: perSecond(figures.countriesPerSecond),
      budget: `>= ${BUDGETS.catalogueReadsPerSecond} /s`,
      mark: atLeast(figures.countriesPerSecond, BUDGETS.catalogueReadsPerSecond),
    },
    {
      figure: 'GET /packages?regionId=DE',
      value: perSecond(figures.packagesPerSecond),
      budget: `>= ${BUDGETS.catalogueReadsPerSecond} /s`,
      mark: atLeast(figures.packagesPerSecond, BUDGETS.catalogueReadsPerSecond),
    },
  ];
}

/**
 * The pages a signed-out visitor only passes through on the way to login: every script the built
 * page references, and everything those import (also lazily), as a signed-in traveller's phone
 * fetches it at most.
 */
function signedInRows(dist: string): Row[] {
  const pages = [
    { name: 'checkout', file: 'checkout.html', budget: BUDGETS.checkoutPageJsBrotli },
    { name: 'payment-success', file: 'payment-success.html', budget: BUDGETS.checkoutPageJsBrotli },
    { name: 'my-esim', file: 'my-esim.html', budget: BUDGETS.loginPageJsBrotli },
  ];
  return [
    section('Signed in: every script the page and its islands load (static count, lazy chunks included)'),
    ...pages.map(({ name, file, budget }) => {
      const js = pageWeight(dist, join(dist, file)).js;
      return { figure: `${name} JS`, value: sizeValue(js), budget: `br <= ${kb(budget)}`, mark: overMark(js.brotli, budget) };
    }),
  ];
}

/** What prices in several currencies (issue 34) added: package pages' JavaScript and store pages' HTML, against before them. */
function currencyRows(dist: string): Row[] {
  const grown = (kind: 'js' | 'html', weights: Readonly<Record<string, number>>) =>
    Object.entries(weights).map(([page, before]): Row => {
      const now = pageWeight(dist, join(dist, `${page}.html`))[kind].brotli;
      const limit = before + BUDGETS.currenciesGrowthBrotli;
      return {
        figure: `${page} ${kind === 'js' ? 'JS' : 'HTML'}, brotli`,
        value: `${now.toLocaleString('en')} B (+${(now - before).toLocaleString('en')} over ${before.toLocaleString('en')})`,
        budget: `<= +${kb(BUDGETS.currenciesGrowthBrotli)}`,
        mark: overMark(now, limit),
      };
    });
  return [
    section('What the currencies add (issue 34), over the weights before them'),
    ...grown('js', BEFORE_CURRENCIES.packagePageJs),
    ...grown('html', BEFORE_CURRENCIES.storePageHtml),
  ];
}

function deliveryRows(figures: DeliveryFigures): Row[] {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return [
    section(
      `Delivery: ${figures.purchases} purchases, payment to QR code on the success page (partner allocates in ${figures.allocationDelayMs / 1000} s)`,
    ),
    { figure: 'payment to QR code p50', value: seconds(figures.qrP50Ms), budget: '', mark: '' },
    {
      figure: 'payment to QR code p95',
      value: seconds(figures.qrP95Ms),
      budget: `<= ${BUDGETS.paymentToQrP95Ms / 1000} s`,
      mark: overMark(figures.qrP95Ms, BUDGETS.paymentToQrP95Ms),
    },
    { figure: 'payment to QR code, slowest', value: seconds(figures.qrMaxMs), budget: '', mark: '' },
    ...(figures.afterAllocationP50Ms == null
      ? []
      : [
          { figure: 'allocation to QR code p50 (issue 22: long-poll)', value: seconds(figures.afterAllocationP50Ms), budget: '', mark: '' },
          {
            figure: 'allocation to QR code p95',
            value: seconds(figures.afterAllocationP95Ms!),
            budget: '<= 0.3 s',
            mark: overMark(figures.afterAllocationP95Ms!, 300),
          },
        ]),
  ];
}

function printTable(rows: Row[]): void {
  const headers: Row = { figure: 'figure', value: 'value', budget: 'budget', mark: 'mark' };
  const widths = {
    figure: Math.max(...[headers, ...rows].filter((row) => row.value || row === headers).map((row) => row.figure.length)),
    value: Math.max(...[headers, ...rows].map((row) => row.value.length)),
    budget: Math.max(...[headers, ...rows].map((row) => row.budget.length)),
  };
  const line = (row: Row) =>
    `${row.figure.padEnd(widths.figure)} | ${row.value.padEnd(widths.value)} | ${row.budget.padEnd(widths.budget)} | ${row.mark}`.trimEnd();
  const rule = '-'.repeat(widths.figure + widths.value + widths.budget + 12);
  console.log(`\n${line(headers)}`);
  for (const row of rows) console.log(row.value || row.budget ? line(row) : `${rule}\n${row.figure}`);
  console.log(rule);
}

/** Every number under a stable name, for comparing two reports. */
export function flatFigures(report: Omit<BenchReport, 'figures'>): Record<string, number> {
  const figures: Record<string, number> = {};
  if (report.build) figures['build.pages'] = report.build.pages;
  if (report.build?.seconds != null) figures['build.seconds'] = Number(report.build.seconds.toFixed(2));
  for (const page of report.pages) {
    for (const kind of ['html', 'js', 'css'] as const) {
      for (const size of ['raw', 'gzip', 'brotli'] as const) {
        figures[`bytes.${page.name}.${page.consent ? 'consent' : 'first-visit'}.${kind}.${size}`] = page[kind][size];
      }
    }
  }
  if (report.precache?.present) figures['precache.raw'] = report.precache.raw;
  if (report.shop) {
    const { orders, saturationRuns, ...rest } = report.shop;
    const put = (name: string, value: unknown) => {
      if (typeof value === 'number' && Number.isFinite(value)) figures[name] = Number(value.toFixed(1));
    };
    for (const [name, value] of Object.entries(rest)) put(`shop.${name}`, value);
    for (const [name, value] of Object.entries(orders)) put(`shop.orders.${name}`, value);
    if (orders.cpu) for (const [name, value] of Object.entries(orders.cpu)) put(`shop.orders.cpu.${name}`, value);
    // The first run at each rate (a rate that did not hold ran twice).
    for (const step of saturationRuns.toReversed()) put(`shop.at${step.rate}.ownP99Ms`, step.ownP99Ms);
  }
  for (const result of report.lighthouse) {
    const key = `lighthouse.${result.locale}.${result.page}`;
    for (const category of LIGHTHOUSE_CATEGORIES) {
      if (result.scores[category] !== null) figures[`${key}.${category}`] = result.scores[category]!;
    }
    if (result.lcpMs !== null) figures[`${key}.lcpMs`] = Math.round(result.lcpMs);
    if (result.tbtMs !== null) figures[`${key}.tbtMs`] = Math.round(result.tbtMs);
    if (result.cls !== null) figures[`${key}.cls`] = Number(result.cls.toFixed(4));
  }
  return figures;
}

function printComparison(current: BenchReport, file: string): void {
  const old = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  console.log(`\nCompared with ${file} (commit ${old.commit?.slice(0, 10) ?? '?'}${old.dirty ? '+changes' : ''}, ${old.timestamp}):`);
  const names = [...new Set([...Object.keys(old.figures ?? {}), ...Object.keys(current.figures)])].sort();
  let changed = 0;
  let unmatched = 0;
  for (const name of names) {
    const before = old.figures?.[name];
    const after = current.figures[name];
    if (before === after) continue;
    if (before === undefined || after === undefined) {
      unmatched++;
      continue;
    }
    changed++;
    const delta = after - before;
    const percent = before === 0 ? '' : ` (${delta > 0 ? '+' : ''}${((delta / before) * 100).toFixed(1)}%)`;
    console.log(`  ${name.padEnd(48)} ${before} -> ${after}  ${delta > 0 ? '+' : ''}${Number(delta.toFixed(4))}${percent}`);
  }
  if (!changed) console.log('  no figure changed');
  if (unmatched) console.log(`  (${unmatched} figures are in one report only, e.g. Lighthouse skipped or no build timed)`);
}

/** What a reader needs beside the table: redirects, why a figure is missing, what Lighthouse marked down. */
function benchNotes(report: BenchReport, buildLog: string): string[] {
  const notes: string[] = [];
  for (const page of report.pages) {
    if (page.redirectedTo && !page.consent) {
      notes.push(`${page.path} sends a signed-out visitor to ${page.redirectedTo}: counted is what ${page.path} loaded before it left.`);
    }
  }
  const notFound = report.pages.flatMap((page) =>
    page.files.filter((file) => file.status >= 400).map((file) => `${page.path} -> ${file.url} ${file.status}`),
  );
  if (notFound.length) notes.push(`Failed loads: ${[...new Set(notFound)].join(', ')}`);
  if (report.precache && !report.precache.present) {
    const elsewhere = existsSync(buildLog) ? /"globDirectory": "([^"]+)"/.exec(readFileSync(buildLog, 'utf8'))?.[1] : undefined;
    notes.push(
      elsewhere && resolve(elsewhere) !== report.dist
        ? `No sw.js in ${report.dist}: the service worker was built against ${elsewhere}. Astro gives Vite's top-level build.outDir ` +
            `'.astro' when outDir is outside the project, and vite-plugin-pwa reads that; pass outDir to AstroPWA in astro.config.mjs.`
        : `No sw.js in ${report.dist}: the precache could not be measured.`,
    );
  }
  if (report.precache?.missing.length) notes.push(`Precache entries missing from the build: ${report.precache.missing.join(', ')}`);
  for (const result of report.lighthouse) {
    if (result.runtimeError) notes.push(`Lighthouse ${result.path}: ${result.runtimeError}`);
    const failing = result.failing.filter((audit) => audit.score < 0.9);
    if (failing.length) {
      notes.push(`Lighthouse ${result.path} marks down: ${failing.map((audit) => `${audit.id} ${audit.score.toFixed(2)}`).join(', ')}`);
      const relevant = result.evidence.filter(
        (fact) =>
          (fact.startsWith('LCP') && failing.some((audit) => audit.id === 'largest-contentful-paint')) ||
          (fact.startsWith('layout shift') && failing.some((audit) => audit.id === 'cumulative-layout-shift')) ||
          (fact.startsWith('console') && failing.some((audit) => audit.id === 'errors-in-console')),
      );
      for (const fact of relevant) notes.push(`  ${fact}`);
    }
    if (result.performanceRuns.length > 1)
      notes.push(`Lighthouse ${result.path} performance runs: ${result.performanceRuns.map(score).join(', ')}`);
  }
  return notes;
}

export interface BenchReport {
  timestamp: string;
  commit: string | null;
  /** Whether the working tree had uncommitted changes. */
  dirty: boolean;
  versions: { node: string; chromium: string; lighthouse: string };
  dist: string;
  budgets: typeof BUDGETS;
  /** null with --shop-only, as is the precache. */
  build: BuildFigures | null;
  pages: PageFigures[];
  precache: Precache | null;
  lighthouse: LighthouseFigures[];
  shop: ShopFigures | null;
  delivery: DeliveryFigures | null;
  table: Row[];
  ok: boolean;
  figures: Record<string, number>;
}

/** What the table is made of: a part measured is there, a part skipped (null) has no rows. */
export interface TableParts {
  build: BuildFigures | null;
  /** null with --shop-only: no page weights and no signed-in pages. */
  pages: PageFigures[] | null;
  precache: Precache | null;
  /** null when Lighthouse was skipped. */
  lighthouse: LighthouseFigures[] | null;
  shop: ShopFigures | null;
  delivery: DeliveryFigures | null;
  /** The build measured, and the Lighthouse runs a page. */
  dist: string;
  runs: number;
}

/** The table of every figure and its budget, in the order it prints. */
export function benchTable(parts: TableParts): Row[] {
  return [
    ...(parts.build ? buildRows(parts.build) : []),
    ...(parts.pages ? weightRows(parts.pages) : []),
    ...(parts.pages ? signedInRows(parts.dist) : []),
    ...(parts.pages ? currencyRows(parts.dist) : []),
    ...(parts.precache ? precacheRows(parts.precache) : []),
    ...(parts.lighthouse ? lighthouseRows(parts.lighthouse, parts.runs) : []),
    ...(parts.shop ? shopRows(parts.shop) : []),
    ...(parts.delivery ? deliveryRows(parts.delivery) : []),
  ];
}

/** The rows whose budget was missed (a figure with nothing to measure is not one). */
export const missedBudgets = (table: Row[]): Row[] => table.filter((row) => row.mark && row.mark !== 'ok' && row.mark !== 'missing');

/** Prints the table, the notes, the comparison with --compare's report and which budgets were missed. */
export function printReport(
  report: BenchReport,
  files: { out: string; buildLog: string; lighthouse: string; compare?: string | undefined },
): void {
  printTable(report.table);
  const notes = benchNotes(report, files.buildLog);
  if (notes.length) console.log(`\nNotes:\n${notes.map((note) => (note.startsWith('  ') ? `  ${note}` : `- ${note}`)).join('\n')}`);
  if (files.compare) printComparison(report, files.compare);
  console.log(`\nFigures written to ${files.out}${report.lighthouse.length ? ` (Lighthouse reports in ${files.lighthouse})` : ''}.`);
  const missed = missedBudgets(report.table);
  if (missed.length) {
    const names = missed.map((row) => `${row.figure.replace(/\s+/g, ' ')} (${row.mark})`).join('; ');
    console.log(`${missed.length} budget${missed.length === 1 ? '' : 's'} missed: ${names}`);
  } else console.log('Every budget met.');
}

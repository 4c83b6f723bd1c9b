// The benchmark of DESIGN 3's budgets: build time, what each page type really loads, the
// service-worker precache and Lighthouse scores. Prints one table, writes reports/bench.json and
// exits non-zero when a budget is missed. Not part of `npm test` (it takes minutes).
// Usage: npm run bench -- [--no-build] [--dist DIR] [--out FILE] [--compare OLD.json] [--runs N] [--no-lighthouse] [--no-shop | --shop-only]
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { localizePath } from '../src/i18n/paths.ts';
import type { Locale } from '../src/i18n/locales.ts';
import { CHROMIUM_PATH, ensureChromium } from './lib/chromium.ts';
import { withCompression } from './lib/compression.ts';
import { launchBrowser, loadedWeight, type LoadedWeight } from './lib/loaded-weight.ts';
import { LIGHTHOUSE_CATEGORIES, launchLighthouseChrome, runLighthouse, type LighthouseResult } from './lib/lighthouse-run.ts';
import { BUDGETS, pageWeight, type Sizes } from './lib/page-weight.ts';
import { benchShopApi, describeCpu, type ShopFigures } from './lib/shop-bench.ts';
import { benchDelivery, type DeliveryFigures } from './lib/delivery-bench.ts';
import { htmlFiles } from './lib/html-files.ts';
import { precache, type Precache } from './lib/precache.ts';
import { createStaticServer, listen } from './lib/static-server.ts';

const HELP = `npm run bench -- [options]

Builds the site (astro build, every language) and measures DESIGN 3's budgets:
  build wall time and pages built;
  per page type, the HTML, JavaScript and CSS Chromium loads (raw, gzip, brotli), on a first
    visit and with the cookie consent stored;
  the service worker's precache (raw bytes of the files in dist/sw.js's manifest);
  the shop API on a real PostgreSQL server: POST /orders arriving at a fixed 100 a second for
    30 s, open loop (p50/p99 of the API's own share, the payment provider's time excluded, and of
    the whole round trip; failures), the saturation rate (the highest arrival rate whose own-share
    p99 stays within 50 ms with no failure), and catalogue reads per second (50 connections);
  from the payment to the QR code on the success page (20 purchases);
  Lighthouse 13 (mobile defaults) on home, store, package, FAQ and login in en, ar and ja,
    one page at a time, the build served on 127.0.0.1 compressed as hosting serves it.
Prints one table, writes the figures as JSON, exits 1 when a budget is missed.

Options:
  --no-build         measure the existing build instead of building
  --dist DIR         where to build and what to measure (default: $ASTRO_OUT_DIR, else dist)
  --out FILE         the JSON report (default: reports/bench.json); Lighthouse reports go beside it
  --compare FILE     an earlier JSON report: print what changed
  --runs N           Lighthouse runs per page, the median run by performance counts (default: 1)
  --no-lighthouse    skip Lighthouse (bytes, precache and build only)
  --no-shop          skip the shop API (POST /orders latency, catalogue reads per second) and delivery
  --shop-only        only the shop API figures (no build, pages, Lighthouse or delivery; about 2 minutes)
  -h, --help         this text`;

const { values: options } = parseArgs({
  options: {
    'no-build': { type: 'boolean', default: false },
    dist: { type: 'string', default: process.env.ASTRO_OUT_DIR || 'dist' },
    out: { type: 'string', default: 'reports/bench.json' },
    compare: { type: 'string' },
    runs: { type: 'string', default: '1' },
    'no-lighthouse': { type: 'boolean', default: false },
    'no-shop': { type: 'boolean', default: false },
    'shop-only': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (options.help) {
  console.log(HELP);
  process.exit(0);
}

if (options['shop-only'] && options['no-shop']) fail('--shop-only and --no-shop exclude each other');
const SHOP_ONLY = options['shop-only'];
const DIST = resolve(options.dist);
const OUT = resolve(options.out);
const RUNS = Math.max(1, Number(options.runs) || 1);

/** The page types of DESIGN 3 and which JavaScript budget each answers to. */
type JsBudget = 'content' | 'account' | 'checkout' | 'page';
const PAGE_TYPES: { name: string; path: string; js: JsBudget }[] = [
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
const LIGHTHOUSE_PAGES = ['home', 'store', 'package', 'faq', 'login'];
const LIGHTHOUSE_LOCALES: Locale[] = ['en', 'ar', 'ja'];

// ---------------------------------------------------------------------------------------------
// Measuring

interface BuildFigures {
  built: boolean;
  seconds: number | null;
  pages: number;
}

async function build(): Promise<BuildFigures> {
  if (options['no-build']) {
    if (!existsSync(join(DIST, 'index.html'))) fail(`--no-build: no build in ${DIST} (index.html missing)`);
    return { built: false, seconds: null, pages: countPages() };
  }
  const log = join(dirname(OUT), 'bench-build.log');
  mkdirSync(dirname(log), { recursive: true });
  console.log(`Building every language into ${DIST} (log: ${log}) ...`);
  const output = createWriteStream(log);
  const started = performance.now();
  const status = await new Promise<number | null>((done) => {
    const child = spawn('astro', ['build'], {
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ASTRO_OUT_DIR: DIST },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(output, { end: false });
    child.stderr.pipe(output, { end: false });
    child.on('error', (error) => {
      output.write(String(error));
      done(1);
    });
    child.on('close', done);
  });
  const seconds = (performance.now() - started) / 1000;
  await new Promise((done) => output.end(done));
  if (status !== 0) {
    console.error(readFileSync(log, 'utf8').split('\n').slice(-40).join('\n'));
    fail(`astro build failed with status ${status} (full log: ${log})`);
  }
  return { built: true, seconds, pages: countPages() };
}

function countPages(): number {
  return [...htmlFiles(DIST)].length;
}

interface PageFigures extends LoadedWeight {
  name: string;
  path: string;
  consent: boolean;
}

async function pageWeights(origin: string): Promise<PageFigures[]> {
  const browser = await launchBrowser();
  const figures: PageFigures[] = [];
  try {
    for (const page of PAGE_TYPES) {
      for (const consent of [false, true]) {
        process.stdout.write(`Loading ${page.path} ${consent ? 'with stored consent' : 'on a first visit'} ...\n`);
        figures.push({ name: page.name, path: page.path, consent, ...(await loadedWeight(browser, origin, DIST, page.path, consent)) });
      }
    }
  } finally {
    await browser.close();
  }
  return figures;
}

interface LighthouseFigures extends LighthouseResult {
  page: string;
  locale: Locale;
  path: string;
  /** Performance score of every run when --runs > 1 (the median run is the one reported). */
  performanceRuns: (number | null)[];
}

async function lighthouseScores(origin: string): Promise<LighthouseFigures[]> {
  const figures: LighthouseFigures[] = [];
  const reports = join(dirname(OUT), 'lighthouse');
  for (const locale of LIGHTHOUSE_LOCALES) {
    for (const name of LIGHTHOUSE_PAGES) {
      const path = localizePath(locale, PAGE_TYPES.find((page) => page.name === name)!.path);
      const runs: LighthouseResult[] = [];
      for (let run = 1; run <= RUNS; run++) {
        console.log(`Lighthouse ${path}${RUNS > 1 ? ` (run ${run}/${RUNS})` : ''} ...`);
        // A fresh browser for every run: no cache, storage or compiled code carried over.
        const chrome = await launchLighthouseChrome();
        try {
          const file = join(reports, `${locale}-${name}${RUNS > 1 ? `-${run}` : ''}.json`);
          runs.push(await runLighthouse(chrome.port, new URL(path, origin).href, file));
        } catch (error) {
          runs.push({
            url: new URL(path, origin).href,
            scores: { performance: null, accessibility: null, 'best-practices': null, seo: null },
            lcpMs: null,
            tbtMs: null,
            cls: null,
            failing: [],
            evidence: [],
            runtimeError: error instanceof Error ? error.message : String(error),
            warnings: [],
          });
        } finally {
          chrome.kill();
        }
      }
      const ranked = [...runs].sort((a, b) => (a.scores.performance ?? -1) - (b.scores.performance ?? -1));
      const median = ranked[Math.floor((ranked.length - 1) / 2)]!;
      figures.push({ ...median, page: name, locale, path, performanceRuns: runs.map((r) => r.scores.performance) });
    }
  }
  return figures;
}

// ---------------------------------------------------------------------------------------------
// Judging and reporting

/** 'ok', or what is wrong: OVER (bytes, seconds), LOW (scores), ERROR; 'missing' when there is nothing to measure. */
type Mark = string;
interface Row {
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
    { figure: `${'page'.padEnd(24)} ${'visit'.padEnd(7)} kind`, value: `${'raw'.padStart(8)} ${'gzip'.padStart(8)} ${'brotli'.padStart(8)}`, budget: '', mark: '' },
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
const lighthouseValue = (cells: string[]) =>
  cells.map((cell, index) => cell.padStart(index < 4 ? 4 : index === 6 ? 6 : 8)).join(' ');

function lighthouseRows(results: LighthouseFigures[]): Row[] {
  const rows = [
    section(`Lighthouse 13, mobile defaults${RUNS > 1 ? `, median of ${RUNS} runs` : ''}, first visit`),
    { figure: 'language page', value: lighthouseValue([...LIGHTHOUSE_CATEGORIES.map((c) => SHORT[c]!), 'LCP', 'TBT', 'CLS']), budget: '', mark: '' },
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
  const failed = run.non2xx + run.errors + (run.planned - run.sent);
  const statuses = Object.entries(run.statuses).map(([status, n]) => `${n}x${status}`).join(', ');
  return [
    section(
      `Shop API on PostgreSQL, loopback: POST /orders arriving at a fixed ${run.rate}/s for ${run.seconds} s (open loop; ` +
        `${run.planned.toLocaleString('en')} new orders by ${figures.buyers.toLocaleString('en')} buyers in all, ${figures.ordersPerBuyer} at most each); reads at 50 connections`,
    ),
    { figure: 'POST /orders p50, the API\'s own share (payment provider excluded)', value: ms(run.ownP50Ms), budget: '', mark: '' },
    {
      figure: 'POST /orders p99, the API\'s own share (payment provider excluded)',
      value: ms(run.ownP99Ms),
      budget: `<= ${BUDGETS.ordersP99Ms} ms at ${run.rate}/s`,
      mark: Number.isFinite(run.ownP99Ms) ? overMark(run.ownP99Ms, BUDGETS.ordersP99Ms) : 'ERROR',
    },
    { figure: 'POST /orders p50 / p99, whole round trip (Stripe stand-in included)', value: `${ms(run.totalP50Ms)} / ${ms(run.totalP99Ms)}`, budget: '', mark: '' },
    {
      figure: 'POST /orders created / non-2xx / errors',
      value: `${run.created.toLocaleString('en')} / ${run.non2xx}${statuses ? ` (${statuses})` : ''} / ${run.errors}${run.stopped ? `; ${run.stopped}` : ''}`,
      budget: 'none fails',
      mark: failed ? 'ERROR' : 'ok',
    },
    ...(run.apiCpuMsPerOrder === null
      ? []
      : [{ figure: 'POST /orders CPU time an order: API process / PostgreSQL (steadier than latency)', value: `${ms(run.apiCpuMsPerOrder)} / ${ms(run.postgresCpuMsPerOrder!)}`, budget: '', mark: '' }]),
    ...(run.transactionsPerOrder === null
      ? []
      : [{ figure: 'POST /orders PostgreSQL transactions an order (background jobs included)', value: run.transactionsPerOrder.toFixed(1), budget: '', mark: '' }]),
    { figure: 'POST /orders sender behind schedule, p99 / max', value: `${ms(run.sendLagP99Ms)} / ${ms(run.sendLagMaxMs)}`, budget: '', mark: '' },
    ...(run.cpu ? [{ figure: 'POST /orders CPUs meanwhile (others\' work makes it noisy)', value: describeCpu(run.cpu), budget: '', mark: '' }] : []),
    {
      figure: `POST /orders saturation rate (own p99 <= ${BUDGETS.ordersP99Ms} ms, none fails)`,
      value: figures.saturationRate ? perSecond(figures.saturationRate) : `under ${Math.min(...figures.saturationRuns.map((r) => r.rate))} /s`,
      budget: 'goal 200 /s (DESIGN 3)',
      mark: '',
    },
    ...figures.saturationRuns.map((step) => ({
      figure: `  at ${step.rate}/s for ${step.seconds} s: own p50 / p99, failed`,
      value: `${ms(step.ownP50Ms)} / ${ms(step.ownP99Ms)}, ${step.non2xx + step.errors + (step.planned - step.sent)}${step.held ? '' : ' (not held)'}`,
      budget: '',
      mark: '',
    })),
    { figure: 'GET /countries?lang=ja', value: perSecond(figures.countriesPerSecond), budget: `>= ${BUDGETS.catalogueReadsPerSecond} /s`, mark: atLeast(figures.countriesPerSecond, BUDGETS.catalogueReadsPerSecond) },
    { figure: 'GET /packages?regionId=DE', value: perSecond(figures.packagesPerSecond), budget: `>= ${BUDGETS.catalogueReadsPerSecond} /s`, mark: atLeast(figures.packagesPerSecond, BUDGETS.catalogueReadsPerSecond) },
  ];
}

/**
 * The pages a signed-out visitor only passes through on the way to login: every script the built
 * page references, and everything those import (also lazily), as a signed-in traveller's phone
 * fetches it at most.
 */
function signedInRows(): Row[] {
  const pages = [
    { name: 'checkout', file: 'checkout.html', budget: BUDGETS.checkoutPageJsBrotli },
    { name: 'payment-success', file: 'payment-success.html', budget: BUDGETS.checkoutPageJsBrotli },
    { name: 'my-esim', file: 'my-esim.html', budget: BUDGETS.loginPageJsBrotli },
  ];
  return [
    section('Signed in: every script the page and its islands load (static count, lazy chunks included)'),
    ...pages.map(({ name, file, budget }) => {
      const js = pageWeight(DIST, join(DIST, file)).js;
      return { figure: `${name} JS`, value: sizeValue(js), budget: `br <= ${kb(budget)}`, mark: overMark(js.brotli, budget) };
    }),
  ];
}

function deliveryRows(figures: DeliveryFigures): Row[] {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return [
    section(`Delivery: ${figures.purchases} purchases, payment to QR code on the success page (partner allocates in ${figures.allocationDelayMs / 1000} s)`),
    { figure: 'payment to QR code p50', value: seconds(figures.qrP50Ms), budget: '', mark: '' },
    { figure: 'payment to QR code p95', value: seconds(figures.qrP95Ms), budget: `<= ${BUDGETS.paymentToQrP95Ms / 1000} s`, mark: overMark(figures.qrP95Ms, BUDGETS.paymentToQrP95Ms) },
    { figure: 'payment to QR code, slowest', value: seconds(figures.qrMaxMs), budget: '', mark: '' },
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
function flatFigures(report: Omit<BenchReport, 'figures'>): Record<string, number> {
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
function benchNotes(report: BenchReport): string[] {
  const notes: string[] = [];
  for (const page of report.pages) {
    if (page.redirectedTo && !page.consent) {
      notes.push(`${page.path} sends a signed-out visitor to ${page.redirectedTo}: counted is what ${page.path} loaded before it left.`);
    }
  }
  const notFound = report.pages.flatMap((page) => page.files.filter((file) => file.status >= 400).map((file) => `${page.path} -> ${file.url} ${file.status}`));
  if (notFound.length) notes.push(`Failed loads: ${[...new Set(notFound)].join(', ')}`);
  if (report.precache && !report.precache.present) {
    const log = join(dirname(OUT), 'bench-build.log');
    const elsewhere = existsSync(log) ? /"globDirectory": "([^"]+)"/.exec(readFileSync(log, 'utf8'))?.[1] : undefined;
    notes.push(
      elsewhere && resolve(elsewhere) !== DIST
        ? `No sw.js in ${DIST}: the service worker was built against ${elsewhere}. Astro gives Vite's top-level build.outDir ` +
            `'.astro' when outDir is outside the project, and vite-plugin-pwa reads that; pass outDir to AstroPWA in astro.config.mjs.`
        : `No sw.js in ${DIST}: the precache could not be measured.`,
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
    if (result.performanceRuns.length > 1) notes.push(`Lighthouse ${result.path} performance runs: ${result.performanceRuns.map(score).join(', ')}`);
  }
  return notes;
}

interface BenchReport {
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

function git(...args: string[]): string | null {
  const { status, stdout } = spawnSync('git', args, { encoding: 'utf8' });
  return status === 0 ? stdout.trim() : null;
}

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------

let buildFigures: BuildFigures | null = null;
let pages: PageFigures[] = [];
let lighthouseResults: LighthouseFigures[] = [];
let precacheFigures: Precache | null = null;
if (!SHOP_ONLY) {
  ensureChromium();
  buildFigures = await build();
  // Compressed as Firebase Hosting compresses, so Lighthouse downloads what a phone would.
  const server = withCompression(createStaticServer(DIST));
  const origin = await listen(server, 0);
  console.log(`Serving ${DIST} at ${origin} (brotli or gzip, as hosting does)`);
  try {
    pages = await pageWeights(origin);
    if (!options['no-lighthouse']) lighthouseResults = await lighthouseScores(origin);
  } finally {
    server.close();
  }
  precacheFigures = precache(DIST);
}
const shopFigures = options['no-shop'] ? null : await benchShopApi();
const deliveryFigures = options['no-shop'] || SHOP_ONLY ? null : await benchDelivery();

const table = [
  ...(buildFigures ? buildRows(buildFigures) : []),
  ...(SHOP_ONLY ? [] : weightRows(pages)),
  ...(SHOP_ONLY ? [] : signedInRows()),
  ...(precacheFigures ? precacheRows(precacheFigures) : []),
  ...(SHOP_ONLY || options['no-lighthouse'] ? [] : lighthouseRows(lighthouseResults)),
  ...(shopFigures ? shopRows(shopFigures) : []),
  ...(deliveryFigures ? deliveryRows(deliveryFigures) : []),
];
const missed = table.filter((row) => row.mark && row.mark !== 'ok' && row.mark !== 'missing');
const partial: Omit<BenchReport, 'figures'> = {
  timestamp: new Date().toISOString(),
  commit: git('rev-parse', 'HEAD'),
  dirty: Boolean(git('status', '--porcelain')),
  versions: {
    node: process.version,
    chromium: SHOP_ONLY ? 'not used (--shop-only)' : (spawnSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '?'),
    lighthouse: (JSON.parse(readFileSync('node_modules/lighthouse/package.json', 'utf8')) as { version: string }).version,
  },
  dist: DIST,
  budgets: BUDGETS,
  build: buildFigures,
  pages,
  precache: precacheFigures,
  lighthouse: lighthouseResults,
  shop: shopFigures,
  delivery: deliveryFigures,
  table,
  ok: missed.length === 0,
};
const report: BenchReport = { ...partial, figures: flatFigures(partial) };
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);

printTable(table);
const notes = benchNotes(report);
if (notes.length) console.log(`\nNotes:\n${notes.map((note) => (note.startsWith('  ') ? `  ${note}` : `- ${note}`)).join('\n')}`);
if (options.compare) printComparison(report, resolve(options.compare));
console.log(`\nFigures written to ${OUT}${lighthouseResults.length ? ` (Lighthouse reports in ${join(dirname(OUT), 'lighthouse')})` : ''}.`);
if (missed.length) {
  console.log(`${missed.length} budget${missed.length === 1 ? '' : 's'} missed: ${missed.map((row) => `${row.figure.replace(/\s+/g, ' ')} (${row.mark})`).join('; ')}`);
  process.exit(1);
}
console.log('Every budget met.');

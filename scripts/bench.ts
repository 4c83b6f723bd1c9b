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
import {
  PAGE_TYPES,
  benchTable,
  flatFigures,
  missedBudgets,
  printReport,
  type BenchReport,
  type BuildFigures,
  type LighthouseFigures,
  type PageFigures,
} from './lib/bench-report.ts';
import { CHROMIUM_PATH, ensureChromium } from './lib/chromium.ts';
import { withCompression } from './lib/compression.ts';
import { launchBrowser, loadedWeight } from './lib/loaded-weight.ts';
import { launchLighthouseChrome, runLighthouse, type LighthouseResult } from './lib/lighthouse-run.ts';
import { BUDGETS } from './lib/page-weight.ts';
import { benchShopApi } from './lib/shop-bench.ts';
import { benchDelivery } from './lib/delivery-bench.ts';
import { benchQr, qrReport, type QrFigures } from './lib/qr-bench.ts';
import { benchRush, rushReport, rushSpeedUp, type RushFigures } from './lib/rush-bench.ts';
import { htmlFiles } from './lib/html-files.ts';
import { precache, type Precache } from './lib/precache.ts';
import { createStaticServer, listen } from './lib/static-server.ts';

const HELP = `npm run bench -- [options]

Builds the site (astro build, every language) and measures DESIGN 3's budgets:
  build wall time and pages built;
  per page type, the HTML, JavaScript and CSS Chromium loads (raw, gzip, brotli), on a first
    visit and with the cookie consent stored;
  the service worker's precache (raw bytes of the files in dist/sw.js's manifest);
  the shop API on a real PostgreSQL server: POST /orders arriving at a fixed 200 a second for
    30 s, open loop (p50/p99 of the API's own share, Stripe's and the accounts lookup's time excluded, and of
    the whole round trip; failures), the saturation rate (the highest arrival rate whose own-share
    p99 stays within 50 ms with no failure), each the median of --shop-runs runs with the 1-minute
    load average beside it, and catalogue reads per second (50 connections);
  from the payment to the QR code on the success page (20 purchases, over HTTP), and the QR code as a
    buyer sees it in Chromium after the allocation (20 purchases on PGlite and on PostgreSQL: --qr-only);
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
  --shop-only        only the shop API figures (no build, pages, Lighthouse or delivery; about 8 minutes)
  --shop-runs N      runs of POST /orders at the budget's rate, and of the saturation ladder; medians count (default: 3)
  --rush             only the sale-day rush (issue 31): --rush-orders paid orders (500) over --rush-seconds (60)
                     through two API instances to the partner stand-in at its 8 requests a second, with
                     usage reads and refunds beside; then the same with eSIM Go's stand-in beside it at
                     its 10 (issue 48), and how much sooner that finished; writes reports/rush.json (about 8 minutes)
  --rush-partners N  with --rush: only the rush with 1 partner or with 2
  --qr-only          only the QR code in Chromium (issue 31 item 3): 20 purchases as a buyer makes them, on PGlite
                     and on PostgreSQL, QR visible - allocation and - reaching the success page (p50/p95/max) with
                     the 1-minute load average; measures the existing build in --dist (about 5 minutes)
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
    'shop-runs': { type: 'string', default: '3' },
    rush: { type: 'boolean', default: false },
    'qr-only': { type: 'boolean', default: false },
    'rush-orders': { type: 'string', default: '500' },
    'rush-seconds': { type: 'string', default: '60' },
    'rush-partners': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (options.help) {
  console.log(HELP);
  process.exit(0);
}

if (options['shop-only'] && options['no-shop']) fail('--shop-only and --no-shop exclude each other');
if (options.rush) {
  const only = options['rush-partners'];
  if (only !== undefined && only !== '1' && only !== '2') fail('--rush-partners is 1 or 2');
  const figures: RushFigures[] = [];
  for (const partners of only ? [Number(only) as 1 | 2] : ([1, 2] as const)) {
    figures.push(await benchRush({ orders: Number(options['rush-orders']), seconds: Number(options['rush-seconds']), partners }));
    for (const line of rushReport(figures.at(-1)!)) console.log(line);
  }
  if (figures.length === 2) console.log(rushSpeedUp(figures[0]!, figures[1]!));
  const out = resolve(dirname(resolve(options.out)), 'rush.json');
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`Figures written to ${out}`);
  process.exit(0);
}
if (options['qr-only']) {
  ensureChromium();
  const dist = resolve(options.dist);
  if (!existsSync(join(dist, 'payment-success.html'))) fail(`--qr-only measures the existing build: none in ${dist} (npx astro build)`);
  const figures = await benchQr(dist);
  for (const line of qrReport(figures)) console.log(line);
  const out = resolve(dirname(resolve(options.out)), 'qr.json');
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`Figures written to ${out}`);
  process.exit(0);
}
const SHOP_ONLY = options['shop-only'];
const DIST = resolve(options.dist);
const OUT = resolve(options.out);
const RUNS = Math.max(1, Number(options.runs) || 1);

const LIGHTHOUSE_PAGES = ['home', 'store', 'package', 'faq', 'login'];
const LIGHTHOUSE_LOCALES: Locale[] = ['en', 'ar', 'ja'];

const BUILD_LOG = join(dirname(OUT), 'bench-build.log');
const LIGHTHOUSE_REPORTS = join(dirname(OUT), 'lighthouse');

// ---------------------------------------------------------------------------------------------
// Measuring (the report, its rows and notes: scripts/lib/bench-report.ts)

async function build(): Promise<BuildFigures> {
  if (options['no-build']) {
    if (!existsSync(join(DIST, 'index.html'))) fail(`--no-build: no build in ${DIST} (index.html missing)`);
    return { built: false, seconds: null, pages: countPages() };
  }
  const log = BUILD_LOG;
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

async function lighthouseScores(origin: string): Promise<LighthouseFigures[]> {
  const figures: LighthouseFigures[] = [];
  const reports = LIGHTHOUSE_REPORTS;
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
const shopFigures = options['no-shop'] ? null : await benchShopApi({ runs: Math.max(1, Number(options['shop-runs']) || 1) });
const deliveryFigures = options['no-shop'] || SHOP_ONLY ? null : await benchDelivery();
const qrFigures: QrFigures | null = options['no-shop'] || SHOP_ONLY ? null : await benchQr(DIST);

const table = benchTable({
  build: buildFigures,
  pages: SHOP_ONLY ? null : pages,
  precache: precacheFigures,
  lighthouse: SHOP_ONLY || options['no-lighthouse'] ? null : lighthouseResults,
  shop: shopFigures,
  delivery: deliveryFigures,
  dist: DIST,
  runs: RUNS,
});
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
  ok: missedBudgets(table).length === 0,
};
const report: BenchReport = { ...partial, figures: flatFigures(partial) };
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);

printReport(report, {
  out: OUT,
  buildLog: BUILD_LOG,
  lighthouse: LIGHTHOUSE_REPORTS,
  compare: options.compare ? resolve(options.compare) : undefined,
});
if (qrFigures) {
  for (const line of qrReport(qrFigures)) console.log(line);
  writeFileSync(join(dirname(OUT), 'qr.json'), `${JSON.stringify(qrFigures, null, 2)}\n`);
}
if (!report.ok) process.exit(1);

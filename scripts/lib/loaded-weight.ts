import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, devices, type Browser, type Request, type Response } from '@playwright/test';
import { STORAGE_KEYS } from '../../src/config/constants.ts';
import { CHROMIUM_PATH } from './chromium.ts';
import { sizes, type Sizes } from './page-weight.ts';

/** Keeps Chromium off the closed network (DESIGN 5). */
export const QUIET_CHROMIUM_ARGS = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export type ResourceKind = 'html' | 'js' | 'css' | 'other';

export interface LoadedFile {
  url: string;
  kind: ResourceKind;
  status: number;
  raw: number;
}

export interface LoadedWeight {
  html: Sizes;
  js: Sizes;
  css: Sizes;
  /** Images, fonts, the manifest, JSON: raw bytes only. */
  otherRaw: number;
  files: LoadedFile[];
  /** Where the page sent the visitor (the account guard sends a signed-out visitor to login). */
  redirectedTo?: string | undefined;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: QUIET_CHROMIUM_ARGS });
}

const zero = (): Sizes => ({ raw: 0, gzip: 0, brotli: 0 });
const add = (a: Sizes, b: Sizes): Sizes => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, brotli: a.brotli + b.brotli });

function kindOf(request: Request, contentType: string): ResourceKind {
  if (request.resourceType() === 'document' || contentType.includes('text/html')) return 'html';
  if (request.resourceType() === 'script' || contentType.includes('javascript')) return 'js';
  if (request.resourceType() === 'stylesheet' || contentType.includes('text/css')) return 'css';
  return 'other';
}

/** The built file a same-origin URL was served from ('/store' -> store.html), for bodies Chromium no longer holds. */
function builtFile(dist: string, pathname: string): string | undefined {
  const path = decodeURIComponent(pathname);
  return [path, `${path}.html`, join(path, 'index.html')]
    .map((candidate) => join(dist, candidate))
    .find((file) => existsSync(file) && statSync(file).isFile());
}

/**
 * Opens `path` in Chromium the way a phone would (Pixel 7, English browser, empty cache, no
 * service worker) and measures every same-origin response the page loads: the document, its
 * scripts and stylesheets, and the islands hydrated later. After load it scrolls to the end (so
 * client:visible islands hydrate), then waits for network idle and two more seconds (client:idle).
 * With `consent`, the cookie banner's answer is stored before the page starts.
 */
export async function loadedWeight(browser: Browser, origin: string, dist: string, path: string, consent: boolean): Promise<LoadedWeight> {
  const context = await browser.newContext({ ...devices['Pixel 7'], locale: 'en-US', serviceWorkers: 'block' });
  if (consent) {
    await context.addInitScript(([key]) => localStorage.setItem(key!, 'accepted'), [STORAGE_KEYS.cookieConsent]);
  }
  const page = await context.newPage();
  const start = new URL(path, origin);
  let redirectedTo: string | undefined;
  const counted = new Set<Request>();
  const responses: Response[] = [];

  page.on('request', (request) => {
    if (request.frame() === page.mainFrame() && request.isNavigationRequest()) {
      const target = new URL(request.url());
      if (target.pathname !== start.pathname && !redirectedTo) redirectedTo = target.pathname + target.search;
    }
    // Once the page has sent the visitor elsewhere, the next page's loads are not this page's.
    if (!redirectedTo && new URL(request.url()).origin === start.origin) counted.add(request);
  });
  page.on('response', (response) => {
    if (counted.has(response.request())) responses.push(response);
  });

  await page.goto(start.href, { waitUntil: 'load' });
  try {
    await page.evaluate(async () => {
      const pause = () => new Promise((done) => setTimeout(done, 150));
      for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
        scrollTo(0, y);
        await pause();
      }
      scrollTo(0, document.documentElement.scrollHeight);
    });
  } catch {
    // The page navigated away while scrolling (a redirect): what it loaded so far is counted.
  }
  await page.waitForLoadState('networkidle').catch(() => {});
  await page.waitForTimeout(2000);
  await page.waitForLoadState('networkidle').catch(() => {});

  const result: LoadedWeight = { html: zero(), js: zero(), css: zero(), otherRaw: 0, files: [], redirectedTo };
  const seen = new Set<string>();
  for (const response of responses) {
    const url = new URL(response.url());
    if (seen.has(url.href) || (response.status() >= 300 && response.status() < 400)) continue;
    seen.add(url.href);
    let body: Buffer | undefined;
    try {
      body = await response.body();
    } catch {
      const file = builtFile(dist, url.pathname);
      body = file ? readFileSync(file) : undefined;
    }
    if (!body) continue;
    const kind = kindOf(response.request(), response.headers()['content-type'] ?? '');
    result.files.push({ url: url.pathname + url.search, kind, status: response.status(), raw: body.length });
    if (kind === 'other') result.otherRaw += body.length;
    else result[kind] = add(result[kind], sizes(body));
  }
  await context.close();
  return result;
}

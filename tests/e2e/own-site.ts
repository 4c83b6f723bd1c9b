import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';
import { createStaticServer, listen } from '../../scripts/lib/static-server.ts';
import { messages } from './support.ts';

export const DIST = new URL('../../dist/', import.meta.url);

/** Answers a request itself, or passes it on to the next handler and finally to the deployed files. */
type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * The built site on a port of its own, so a test can cut the network (stop the server), publish
 * a new deployment (serve changed files) or answer some paths its own way, while the browser
 * keeps its worker.
 */
export async function ownSite() {
  const files = createStaticServer(new URL(DIST).pathname);
  const handlers: Handler[] = [];
  const server = createServer((req, res) => {
    const run = (index: number): void => {
      const handler = handlers[index];
      if (!handler) return void files.emit('request', req, res);
      handler(req, res, () => run(index + 1));
    };
    run(0);
  });
  const url = await listen(server, 0);
  /** Handlers added later come first: a test's own answers take precedence over a deployment. */
  const use = (handler: Handler) => void handlers.unshift(handler);
  return {
    url,
    use,
    deploy: (path: string, type: string, body: string) =>
      use((req, res, next) => {
        if (pathOf(req) !== path) return next();
        res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-cache' });
        res.end(body);
      }),
    deployNewBuild: () => use(newBuild()),
    goOffline: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export const pathOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://site').pathname;

/** The name a hashed asset gets in the next build ('PlanGrid.BqFBV6Nx.js' -> 'PlanGrid.BqFBV6Nxv2.js'). */
export const nextBuildName = (name: string) => name.replace(/(\.\w+)$/, 'v2$1');

/**
 * The next build as a deployment publishes it: every hashed chunk and style under a new name,
 * the previous names gone (404), pages and the worker referencing the new ones, every precached
 * file with a new revision. Built on the fly from dist/, instead of a second build.
 */
function newBuild(): Handler {
  const names = readdirSync(new URL('_astro/', DIST));
  const previous = new Map(names.map((name) => [nextBuildName(name), name]));
  const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const anyName = new RegExp(names.map(escape).join('|'), 'g');
  const rewrite = (file: URL) =>
    readFileSync(file, 'utf8')
      .replace(anyName, nextBuildName)
      .replace(/"revision":"/g, '"revision":"v2');
  const send = (res: ServerResponse, type: string, cache: string, body: string) => {
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': cache });
    res.end(body);
  };
  return (req, res, next) => {
    const path = pathOf(req);
    if (path.startsWith('/_astro/')) {
      const name = previous.get(path.slice('/_astro/'.length));
      if (!name) return void res.writeHead(404).end();
      const type = name.endsWith('.css') ? 'text/css' : 'text/javascript';
      return send(res, type, 'public, max-age=31536000, immutable', rewrite(new URL(`_astro/${name}`, DIST)));
    }
    if (path === '/sw.js') return send(res, 'text/javascript', 'no-cache', rewrite(new URL('sw.js', DIST)));
    // Clean URLs, as the hosting serves them: '/store' -> store.html, '/de/' -> de/index.html.
    const base = path.replace(/\/$/, '');
    const page = [`${base}.html`, `${base}/index.html`].map((file) => new URL(`.${file}`, DIST)).find((file) => existsSync(file));
    if (page) return send(res, 'text/html; charset=utf-8', 'no-cache', rewrite(page));
    next();
  };
}

/** Waits until the worker controls the page and has saved these pages for reading offline. */
export async function waitUntilSaved(page: Page, paths: readonly string[]): Promise<void> {
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), { timeout: 30_000 }).toBe(true);
  await expect
    .poll(() => page.evaluate(async (all) => (await Promise.all(all.map((p) => caches.match(p)))).filter((r) => !r).length, paths), {
      timeout: 30_000,
    })
    .toBe(0);
}

/** Whether a page is saved for reading offline. */
export const isSaved = (page: Page, path: string) => page.evaluate(async (p) => Boolean(await caches.match(p)), path);

/** What the browser does on its own now and then: ask the server whether the worker changed. */
export const checkForUpdate = (page: Page) => page.evaluate(async () => void (await (await navigator.serviceWorker.ready).update()));

/** The open page offers the new deployment in its language; Reload (by keyboard) moves it onto it. */
export async function reloadOntoUpdate(page: Page, locale: string): Promise<void> {
  const text = messages(locale, 'common').update;
  const notice = page.getByRole('status').filter({ hasText: text.ready });
  await expect(notice).toBeVisible();
  const reloaded = page.waitForEvent('load');
  await notice.getByRole('button', { name: text.reload }).focus();
  await page.keyboard.press('Enter');
  await reloaded;
}

import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, type HTMLElement } from 'node-html-parser';
import { htmlFiles } from '../../scripts/lib/html-files.ts';
import { NOINDEX_ROUTES, siteUrl } from '../../src/config/site.ts';
import { canonicalPath, splitLocale } from '../../src/i18n/paths.ts';

/** Helpers over the built site in dist/, shared by the checks in tests/site. */
export const DIST = join(import.meta.dirname, '../../dist');
export const SITE = siteUrl();

if (!existsSync(join(DIST, 'index.html'))) {
  throw new Error('dist/ has no build: run `npm run build` first (npm test does).');
}

export interface BuiltPage {
  file: string;
  /** The page's canonical pathname, e.g. '/de/store'. */
  path: string;
  html: string;
  doc: HTMLElement;
}

export function builtPages(): BuiltPage[] {
  return [...htmlFiles(DIST)].map((file) => {
    const html = readFileSync(file, 'utf8');
    return { file, path: canonicalPath('/' + relative(DIST, file)), html, doc: parse(html) };
  });
}

export const isIndexable = (page: BuiltPage) => !NOINDEX_ROUTES.includes(splitLocale(page.path).route);

/** The dist file an absolute site URL is served from, or undefined if none. */
export function fileForUrl(url: string): string | undefined {
  const { pathname, origin } = new URL(url);
  if (origin !== SITE) return undefined;
  const base = join(DIST, decodeURIComponent(pathname));
  return [base, `${base}.html`, join(base, 'index.html')].find((f) => existsSync(f) && !f.endsWith('/'));
}

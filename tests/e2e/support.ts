import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

interface Namespaces {
  common: typeof import('../../locales/en/common.json');
  auth: typeof import('../../locales/en/auth.json');
  account: typeof import('../../locales/en/account.json');
  checkout: typeof import('../../locales/en/checkout.json');
  esims: typeof import('../../locales/en/esims.json');
  connect: typeof import('../../locales/en/connect.json');
  legal: typeof import('../../locales/en/legal.json');
  unsubscribe: typeof import('../../locales/en/unsubscribe.json');
  ops: typeof import('../../locales/en/ops.json');
  help: typeof import('../../locales/en/help.json');
  mail: typeof import('../../locales/en/mail.json');
}

/** A language's resources as its pages show them (every language has English's shape: the translation check). */
export function messages<N extends keyof Namespaces>(locale: string, namespace: N): Namespaces[N] {
  return JSON.parse(readFileSync(new URL(`../../locales/${locale}/${namespace}.json`, import.meta.url), 'utf8'));
}

/**
 * Makes the browser speak `lang` only, so the language auto-detection of unprefixed pages
 * agrees with the page under test and never redirects it away.
 */
export async function speak(page: Page, lang: string): Promise<void> {
  await page.addInitScript((l) => Object.defineProperty(navigator, 'languages', { get: () => [l] }), lang);
}

/**
 * Collects what the browser reports about a page breaking the Content-Security-Policy
 * (Chromium logs every blocked script, style, frame or connection), across navigations.
 */
export function recordCspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  return violations;
}

/** A first visit: nothing stored, so the cookie banner shows (playwright.config.ts stores an answer for the other tests). */
export const FIRST_VISIT = { storageState: { cookies: [], origins: [] } };

/** Waits until every React island on the page has hydrated (Astro drops `ssr` from an island then). */
export async function hydrated(page: Page): Promise<void> {
  await expect(page.locator('astro-island[ssr]')).toHaveCount(0);
}

/** The rules that read colours: all a change of theme can break, as it changes colours only. */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * What axe finds on the page as it is now, one line per rule: WCAG 2.1 A and AA and axe's best
 * practices, or only `rules`; `include` narrows the scan to a part of the page (a selector).
 *
 * Legacy mode runs axe in the page itself: the default opens a blank page per scan to merge the
 * results of cross-origin frames, which our pages do not have. Same findings, measured: 0.8 s
 * against 2.6 s on the FAQ and 3.4 s against 7.4 s on the store, per scan.
 */
export async function axeViolations(page: Page, scope: { include?: string; rules?: string[] } = {}): Promise<string[]> {
  let builder = new AxeBuilder({ page }).setLegacyMode(true);
  builder = scope.rules ? builder.withRules(scope.rules) : builder.withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']);
  const results = await (scope.include ? builder.include(scope.include) : builder).analyze();
  return results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

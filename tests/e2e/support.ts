import { expect, type Page } from '@playwright/test';

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

import type { Page } from '@playwright/test';

/**
 * Makes the browser speak `lang` only, so the language auto-detection of unprefixed pages
 * agrees with the page under test and never redirects it away.
 */
export async function speak(page: Page, lang: string): Promise<void> {
  await page.addInitScript((l) => Object.defineProperty(navigator, 'languages', { get: () => [l] }), lang);
}

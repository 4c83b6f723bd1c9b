import { expect, type Page } from '@playwright/test';
import snapshot from '../../src/catalogue/snapshot.json' with { type: 'json' };
import { messages } from './support.ts';

/** The Stripe stand-in's hosted test-payment page that playwright.config.ts starts. */
export const STRIPE_STAND_IN = 'http://127.0.0.1:12111';
/** A plan the tests buy. */
export const PLAN = snapshot.packages.find((p) => p.id === 'de-1gb-7d')!;

/** On the checkout page: both consents, Buy now, and on to the payment page (the order is open). */
export async function buy(page: Page, lang: string): Promise<void> {
  const m = messages(lang, 'auth').checkout;
  await page.locator('#consent-terms').check();
  await page.locator('#consent-immediate-start').check();
  await page.getByRole('button', { name: m.buyNow }).click();
  await expect(page).toHaveURL(new RegExp(`^${STRIPE_STAND_IN}/pay/cs_test_`));
}

/** On the payment page: pays with one of Stripe's test cards. */
export async function payWith(page: Page, card: string): Promise<void> {
  await page.getByLabel('Card number').fill(card);
  await page.getByRole('button', { name: /^Pay / }).click();
}

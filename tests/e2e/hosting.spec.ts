import { readdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { contentSecurityPolicy, parsePolicy } from '../../scripts/lib/csp.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, uniqueEmail } from './auth-support.ts';
import { recordCspViolations, speak } from './support.ts';

/** The built site as firebase.json's hosting configuration serves it (the Firebase Hosting emulator). */
const PAGE_TYPES = ['/', '/store', '/package/jp', '/package/europe', '/package/atlantis', '/faq', '/support', '/chat', '/install-esim', '/terms-conditions', '/login', '/signup', '/profile', '/offline', '/no-such-page'];
const HASHED_ASSET = `/_astro/${readdirSync(new URL('../../dist/_astro/', import.meta.url)).find((f) => f.endsWith('.css'))}`;

test('every response carries the security headers and the Content-Security-Policy', async ({ request }) => {
  const production = parsePolicy(contentSecurityPolicy());
  for (const path of ['/', '/de/store', HASHED_ASSET, '/sw.js', '/manifest.webmanifest', '/flags/DE.svg', '/ar/no-such-page']) {
    const headers = (await request.get(path)).headers();
    expect(headers['strict-transport-security'], path).toMatch(/^max-age=\d{8,}; includeSubDomains/);
    expect(headers['x-content-type-options'], path).toBe('nosniff');
    expect(headers['referrer-policy'], path).toBe('strict-origin-when-cross-origin');
    expect(headers['permissions-policy'], path).toContain('camera=()');
    // Served locally with the Auth emulator's origin added; otherwise firebase.json's policy as it is.
    const served = parsePolicy(headers['content-security-policy']!);
    for (const [directive, sources] of production) expect(served.get(directive), `${path} ${directive}`).toEqual(expect.arrayContaining(sources));
    expect(served.get('frame-ancestors'), path).toEqual(["'none'"]);
  }
});

test('hashed assets are cached for a year; pages, the manifest and the worker are revalidated', async ({ request }) => {
  expect((await request.get(HASHED_ASSET)).headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  for (const path of ['/', '/store', '/de/faq', '/sw.js', '/manifest.webmanifest', '/ja/manifest.webmanifest']) {
    expect((await request.get(path)).headers()['cache-control'], path).toBe('no-cache');
  }
  expect((await request.get('/manifest.webmanifest')).headers()['content-type']).toContain('application/manifest+json');
});

test('clean URLs, and the 404 page with status 404 for an unknown path', async ({ request }) => {
  expect((await request.get('/store')).status()).toBe(200);
  const html = await request.get('/store.html', { maxRedirects: 0 });
  expect(html.status()).toBe(301);
  expect(html.headers()['location']).toBe('/store');
  const missing = await request.get('/de/no-such-page');
  expect(missing.status()).toBe(404);
  expect(await missing.text()).toContain('<meta name="robots" content="noindex"');
});

test.describe('no Content-Security-Policy violation', () => {
  test.use({ serviceWorkers: 'allow' });

  for (const locale of ['en', 'ar'] as const) {
    test(`on every page type (${locale})`, async ({ page }) => {
      const violations = recordCspViolations(page);
      await speak(page, locale);
      for (const route of PAGE_TYPES) {
        await page.goto(localizePath(locale, route));
        await page.waitForLoadState('networkidle');
      }
      // The worker registered and ran under the policy too.
      expect(await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state)).toBe('activated');
      expect(violations).toEqual([]);
    });
  }

  test('while signing in with e-mail and opening the profile', async ({ page }) => {
    const violations = recordCspViolations(page);
    const email = uniqueEmail('csp');
    await createAccount(email, 'travel-safe-1');
    await speak(page, 'en');
    await page.goto('/login');
    await page.locator('#email').fill(email);
    await page.locator('#password').fill('travel-safe-1');
    await page.locator('form button[type="submit"]').click();
    await expect(page).toHaveURL('/profile');
    await expect(page.locator('[data-email]')).toHaveText(email);
    // The chosen plan is fetched from /plans/{id}.json: connect-src allows it.
    await page.goto('/checkout?plan=de-1gb-7d');
    await expect(page.locator('[data-total]')).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(violations).toEqual([]);
  });
});

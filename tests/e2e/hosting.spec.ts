import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { pageKind, parsePolicy, policyOf, readFirebaseConfig } from '../../scripts/lib/csp.ts';
import { authEmulatorOrigin, LOCAL_API_LOG, localPolicy } from '../../scripts/lib/emulators.ts';
import { DEMO_FIREBASE_CONFIG } from '../../src/config/env.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { createAccount, uniqueEmail } from './auth-support.ts';
import { recordCspViolations, speak } from './support.ts';

/** The built site as firebase.json's hosting configuration serves it (the Firebase Hosting emulator). */
const PAGE_TYPES = [
  '/',
  '/store',
  '/package/jp',
  '/package/europe',
  '/package/atlantis',
  '/faq',
  '/support',
  '/chat',
  '/install-esim',
  '/terms-conditions',
  '/login',
  '/signup',
  '/profile',
  '/offline',
  '/unsubscribe',
  '/traveller',
  '/no-such-page',
];
const HASHED_ASSET = `/_astro/${readdirSync(new URL('../../dist/_astro/', import.meta.url)).find((f) => f.endsWith('.css'))}`;

const config = readFirebaseConfig();
/** The policy firebase.json gives a path, as the emulators serve it (the Auth emulator and the local API added). */
const servedPolicy = (path: string) => localPolicy(policyOf(pageKind(path), config), authEmulatorOrigin(config));

test('every response carries the security headers and the Content-Security-Policy of its kind of page', async ({ request }) => {
  const paths = [
    '/',
    '/de/store',
    HASHED_ASSET,
    '/sw.js',
    '/manifest.webmanifest',
    '/flags/DE.svg',
    '/ar/no-such-page',
    '/login',
    '/ar/profile',
    '/checkout',
    '/de/history',
  ];
  for (const path of paths) {
    const headers = (await request.get(path)).headers();
    expect(headers['strict-transport-security'], path).toMatch(/^max-age=\d{8,}; includeSubDomains/);
    expect(headers['x-content-type-options'], path).toBe('nosniff');
    expect(headers['referrer-policy'], path).toBe('strict-origin-when-cross-origin');
    expect(headers['permissions-policy'], path).toContain('camera=()');
    expect(headers['content-security-policy'], path).toBe(servedPolicy(path));
    expect(parsePolicy(headers['content-security-policy']!).get('frame-ancestors'), path).toEqual(["'none'"]);
  }
});

test("Google's sign-in helper and frames are allowed on the pages that sign in, not on the store", async ({ request }) => {
  for (const lang of ['en', 'de'] as const) {
    const store = parsePolicy((await request.get(localizePath(lang, '/store'))).headers()['content-security-policy']!);
    expect(store.get('script-src'), lang).not.toContain('https://apis.google.com');
    expect(store.get('frame-src'), lang).toEqual(["'none'"]);
    const login = parsePolicy((await request.get(localizePath(lang, '/login'))).headers()['content-security-policy']!);
    expect(login.get('script-src'), lang).toContain('https://apis.google.com');
    // The configured auth domain (the demo project's here), and locally the Auth emulator that stands in for it.
    expect(login.get('frame-src'), lang).toEqual([`https://${DEMO_FIREBASE_CONFIG.authDomain}`, authEmulatorOrigin(config)]);
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

  test('while signing in with e-mail and opening every account page', async ({ page }) => {
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
    // Signed in, each loads Firebase Auth for the session (on a phone, without Google's sign-in helper);
    // checkout fetches the chosen plan from /plans/{id}.json, which connect-src allows.
    await page.goto('/checkout?plan=de-1gb-7d');
    await expect(page.locator('[data-total]')).toBeVisible();
    for (const route of ['/my-esim', '/history', '/payment-success']) {
      await page.goto(route);
      await page.waitForLoadState('networkidle');
    }
    expect(violations).toEqual([]);
  });
});

test('a violation is reported to our API, which logs it', async ({ page }) => {
  const marker = randomUUID();
  await page.goto(`/store?csp-probe=${marker}`);
  // A script injected into the page, as cross-site scripting would: the policy blocks it and reports it.
  await page.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.injected = true';
    document.body.append(script);
  });
  expect(await page.evaluate(() => 'injected' in window)).toBe(false);
  // The report names the page it came from, marker included.
  await expect.poll(() => readFileSync(LOCAL_API_LOG, 'utf8'), { timeout: 15_000 }).toContain(`csp-probe=${marker}`);
});

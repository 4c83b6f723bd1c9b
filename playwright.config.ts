import { randomBytes } from 'node:crypto';
import { defineConfig, devices } from '@playwright/test';
import { STORAGE_KEYS } from './src/config/constants.ts';

/**
 * The shop API's unsubscribe-token key for this run (issue 23): set before the webServer starts
 * the API (scripts/local-shop.ts takes it from the environment) and inherited by the workers, so
 * unsubscribe.spec.ts signs tokens the API accepts.
 */
process.env.ALERTS_SECRET ??= randomBytes(32).toString('base64url');

const PORT = Number(process.env.E2E_PORT ?? 4329);
const BASE_URL = `http://127.0.0.1:${PORT}`;

/**
 * End-to-end tests in Debian's Chromium (never a downloaded browser) against the built
 * site served on 127.0.0.1 by the Firebase Hosting emulator. `npm test` builds first; `npm run test:e2e` expects dist/.
 */
export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: true,
  // Two workers on two cores. E2E_WORKERS overrides it (1 to debug; 3 to try on an idle machine:
  // purchase.spec.ts needs 272 CPU-seconds, browsers, API and emulators together, against its 466
  // worker-seconds at two workers in CI, so the tests partly wait. On a machine loaded by other
  // work a third worker made slow-machine races more likely, e.g. connect.spec.ts's axe scan on
  // payment success meeting the page's own move to My eSIMs after 5 s).
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: process.env.CI ? 1 : 0,
  // Two workers, the site server and the Auth emulator share two cores: allow for a slow machine.
  // Measured on this kind of machine on a slow day (load 12-15): axe over the store's 250
  // destinations took 33 s and a purchase with its refund and top-up 31 s, past the default 30 s.
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: BASE_URL,
    // A browser that names no region: pages show their own language's currency unless a test says
    // where the visitor is (Chromium's default en-US would make every page guess US dollars, issue 34).
    locale: 'en',
    // A returning visitor who has answered the cookie banner; the tests about the banner and
    // the accessibility scans start as a first visit (tests/e2e/support.ts: FIRST_VISIT).
    storageState: { cookies: [], origins: [{ origin: BASE_URL, localStorage: [{ name: STORAGE_KEYS.cookieConsent, value: 'accepted' }] }] },
    // A trace of the retry only: recording every test's screenshots and snapshots to throw them
    // away on success cost about an eighth of the run's time on two cores (measured: 138 s → 120 s
    // for my-esims and diagnosis). A test that fails once is run again with its trace kept.
    trace: 'on-first-retry',
    // Each test's fresh context would install the worker and precache the site: only the tests
    // about the worker allow it (tests/e2e/pwa.spec.ts, hosting.spec.ts).
    serviceWorkers: 'block',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Keep Chromium off the closed network: no background calls home.
      args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  projects: [
    { name: 'chromium', grepInvert: /@whole-shop/, use: { ...devices['Pixel 7'], browserName: 'chromium' } },
    // Tests that change the whole shop for a moment (the back office's sales pause): after every
    // other test, so no purchase running beside them meets the pause.
    { name: 'whole-shop', grep: /@whole-shop/, dependencies: ['chromium'], use: { ...devices['Pixel 7'], browserName: 'chromium' } },
  ],
  webServer: [
    {
      // The real Firebase Hosting emulator (firebase.json's headers, CSP included, clean URLs and
      // 404 page) serving dist/, the real Auth emulator, and the shop API on a real PostgreSQL
      // server with the Stripe stand-in: started once per run, about 20 s.
      command: `node scripts/emulators.ts --port ${PORT} --postgres`,
      url: `http://127.0.0.1:${PORT}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
      // A signal, not Playwright's default SIGKILL: the shop's throwaway PostgreSQL server is stopped and removed.
      gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    },
  ],
});

import { defineConfig, devices } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 4329);

/**
 * End-to-end tests in Debian's Chromium (never a downloaded browser) against the built
 * site served on 127.0.0.1. `npm test` builds first; `npm run test:e2e` expects dist/.
 */
export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: true,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  // Two workers, the site server and the Auth emulator share two cores: allow for a slow machine.
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // Keep Chromium off the closed network: no background calls home.
      args: ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Pixel 7'], browserName: 'chromium' } }],
  webServer: [
    {
      command: `node scripts/serve.ts --port ${PORT}`,
      url: `http://127.0.0.1:${PORT}/`,
      reuseExistingServer: !process.env.CI,
      timeout: 30_000,
    },
    {
      // The real Firebase Auth emulator, started once per run (about 20 s) and stopped after it.
      command: 'firebase emulators:start --only auth --project demo-esim',
      url: 'http://127.0.0.1:9099/',
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
      env: { CI: 'true' },
    },
  ],
});

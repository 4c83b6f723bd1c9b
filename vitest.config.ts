import { configDefaults, defineConfig } from 'vitest/config';

// Which project runs a test is chosen by its file name, not its folder: `*.api.test.ts` starts the
// shop API over HTTP and needs the Auth emulator; every other `*.test.ts` beside its code is a unit test.
// tests/deploy/ holds the production artifact's test (issue 31), an API test of the built image.
const SHOP_API_TESTS = ['src/**/*.api.test.ts', 'tests/deploy/**/*.api.test.ts'];
// Files that measure time (an answer within 300 ms of a delivery, the 9th request in a second
// refused, a budget's requests a second): alone, after the others, so no neighbour's work is timed.
const TIMED_TESTS = [
  'src/server/live-status.api.test.ts',
  'src/server/long-poll.api.test.ts',
  'src/server/alerts.api.test.ts',
  'src/server/partner/partner-budget.test.ts',
  'src/server/orders/audit-speed.test.ts',
  'stand-ins/esim-access/server.test.ts',
  // Their rate limits count requests a second.
  'src/server/partner/esim-go/esim-go.test.ts',
  'stand-ins/esim-go/server.test.ts',
];

export default defineConfig({
  test: {
    // Vitest's default is one worker less than the cores: one on CI's 2 cores, every file after the
    // other. The shop API and database files mostly wait on HTTP, the PostgreSQL server and the Auth
    // emulator, so three at once keep both cores busy (the unit and shop projects run together).
    maxWorkers: 3,
    // On CI, as Playwright does: a test that fails once is run once more, so a rare flake (1 of
    // 21,000 on a busy machine) does not stop the submission; npm test names every test that
    // passed only on its retry at the end of each run, so none hides.
    retry: process.env.CI ? 1 : 0,
    projects: [
      // Pure logic and the translation check: no build needed. The shop's database tests run on a
      // real PostgreSQL server the global setup starts once per run (and on PGlite).
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'src/**/*.test.ts',
            'stand-ins/**/*.test.ts',
            'scripts/**/*.test.ts',
            'tests/support/**/*.test.ts',
            'tests/deploy/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...SHOP_API_TESTS, ...TIMED_TESTS],
          globalSetup: ['tests/support/postgres-setup.ts'],
          // Opening PGlite and migrating it (in a hook or a test), beside the shop's files on a busy
          // machine, can take longer than the defaults' 5 and 10 s.
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      // The shop API over HTTP: also Firebase ID tokens from the real Auth emulator, started once per run.
      {
        extends: true,
        test: {
          name: 'shop',
          include: SHOP_API_TESTS,
          exclude: [...configDefaults.exclude, ...TIMED_TESTS],
          globalSetup: ['tests/support/postgres-setup.ts', 'tests/support/auth-emulator.ts'],
          testTimeout: 30_000,
          // Each file opens its database (PGlite too for some), runs its migrations and starts its
          // stand-ins first: 30 s was seen to run out on PGlite while the machine was busy (issue 30).
          hookTimeout: 120_000,
        },
      },
      // The files that measure time: one at a time once the unit and shop files are done (groupOrder 1).
      {
        extends: true,
        test: {
          name: 'timed',
          include: TIMED_TESTS,
          globalSetup: ['tests/support/postgres-setup.ts', 'tests/support/auth-emulator.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      // Checks over the built site in dist/ (run `npm run build` first; `npm test` does). Last
      // (groupOrder 2). Each check (the link crawl, html-validate, the budgets) keeps one core
      // busy, so two at a time use both. The two files that build the site again (into folders of
      // their own, with a bad catalogue or build settings) run beside the checks; their builds take
      // turns (tests/support/build.ts), as two at once would share Astro's and Vite's caches.
      {
        extends: true,
        test: {
          name: 'site',
          include: ['tests/site/**/*.test.ts'],
          testTimeout: 300_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

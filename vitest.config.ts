import { configDefaults, defineConfig } from 'vitest/config';

// Which project runs a test is chosen by its file name, not its folder: `*.api.test.ts` starts the
// shop API over HTTP and needs the Auth emulator; every other `*.test.ts` beside its code is a unit test.
// tests/deploy/ holds the production artifact's test (issue 31), an API test of the built image.
const SHOP_API_TESTS = ['src/**/*.api.test.ts', 'tests/deploy/**/*.api.test.ts'];

export default defineConfig({
  test: {
    // Vitest's default is one worker less than the cores: one on CI's 2 cores, every file after the
    // other. The shop API and database files mostly wait on HTTP, the PostgreSQL server and the Auth
    // emulator, so three at once keep both cores busy (the unit and shop projects run together).
    maxWorkers: 3,
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
          exclude: [...configDefaults.exclude, ...SHOP_API_TESTS],
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
          globalSetup: ['tests/support/postgres-setup.ts', 'tests/support/auth-emulator.ts'],
          testTimeout: 30_000,
          // Each file opens its database (PGlite too for some), runs its migrations and starts its
          // stand-ins first: 30 s was seen to run out on PGlite while the machine was busy (issue 30).
          hookTimeout: 120_000,
        },
      },
      // Checks over the built site in dist/ (run `npm run build` first; `npm test` does).
      {
        extends: true,
        // After the others (groupOrder 1), two files at a time, one a core: the link crawl, html-validate
        // and the builds are work for the CPU, not waits, and none measures time; each serves or
        // builds into a folder of its own.
        test: {
          name: 'site',
          include: ['tests/site/**/*.test.ts'],
          testTimeout: 300_000,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

// Both drivers for tests that run over each (`describe.each(databaseDrivers())`): a fresh PGlite,
// and a fresh database on the run's real PostgreSQL server (tests/support/postgres-setup.ts).
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, inject, onTestFinished } from 'vitest';
import type { Db } from '../../src/server/db/db.types.ts';
import { migrate, MIGRATIONS_DIR } from '../../src/server/db/migrate.ts';
import { openPglite } from '../../src/server/db/pglite.ts';
import { openPostgres } from '../../src/server/db/postgres.ts';

export interface DatabaseDriver {
  name: 'PGlite' | 'PostgreSQL';
  /** A new, empty database, migrated unless told otherwise; its close() also deletes it. */
  open(options?: { migrations?: string | false }): Promise<Db>;
}

/** The URL of a database on the run's PostgreSQL server. */
export function serverDatabaseUrl(database: string): string {
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${database}`;
  return url.href;
}

/** One statement on the server's maintenance database (CREATE or DROP DATABASE cannot run inside the one concerned). */
export async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverDatabaseUrl('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A database of its own on the real server, so test files running in parallel never meet. */
async function openServerDatabase(): Promise<Db> {
  const name = `test_${randomUUID().replaceAll('-', '')}`;
  await onServer(`CREATE DATABASE ${name}`);
  const db = await openPostgres(serverDatabaseUrl(name), { max: 4 });
  return {
    ...db,
    async close() {
      await db.close();
      await onServer(`DROP DATABASE ${name} WITH (FORCE)`);
    },
  };
}

async function prepared(db: Db, migrations: string | false): Promise<Db> {
  if (migrations === false) return db;
  try {
    await migrate(db, migrations);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

const DRIVERS: readonly DatabaseDriver[] = [
  { name: 'PGlite', open: async ({ migrations = MIGRATIONS_DIR } = {}) => prepared(await openPglite(), migrations) },
  { name: 'PostgreSQL', open: async ({ migrations = MIGRATIONS_DIR } = {}) => prepared(await openServerDatabase(), migrations) },
];

/**
 * The drivers a test file runs over: both by default, or `{ only: 'PostgreSQL' }`.
 *
 * Both, for what could differ between them: SQL semantics, locking and races between connections
 * or API instances, LISTEN/NOTIFY, migrations, transactions and the adapters themselves
 * (src/server/db), and one whole purchase → delivery → refund path (refunds.api.test.ts) so the
 * embedded default is known to serve the shop. Everything else, the shop's own logic over HTTP,
 * runs the same SQL through the same `Db` interface whichever driver answers it: it runs once, on
 * the real PostgreSQL server, which is what production runs (README, DESIGN 6) and where races
 * are real (PGlite serves one connection at a time). That halves most shop API files' time.
 * `TEST_ALL_DRIVERS=1` runs every file on both again (e.g. after a change to the PGlite adapter).
 */
export function databaseDrivers(options: { only?: DatabaseDriver['name'] } = {}): DatabaseDriver[] {
  const only = process.env.TEST_ALL_DRIVERS === '1' ? undefined : options.only;
  return DRIVERS.filter((driver) => only === undefined || driver.name === only);
}

/**
 * A database of one driver for the tests of a describe block: opened before them and handed to
 * `use`, closed after them; `truncate` names the tables emptied before each test.
 */
export function withDatabase(open: DatabaseDriver['open'], use: (db: Db) => void, options: { truncate?: string } = {}): void {
  let db: Db | undefined;
  beforeAll(async () => {
    db = await open();
    use(db);
  }, 120_000); // PGlite migrated from scratch: slow on a busy machine
  afterAll(async () => {
    await db?.close();
  });
  if (options.truncate) {
    beforeEach(async () => {
      await db!.query(`TRUNCATE ${options.truncate} CASCADE`);
    });
  }
}

/**
 * A database of one driver migrated up to migration `first`, not including it: a test of what
 * `first` does to the data already there. Closed, with its copy of the migrations, when the test finishes.
 */
export async function openBefore(open: DatabaseDriver['open'], first: string): Promise<Db> {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  for (const name of readdirSync(MIGRATIONS_DIR).filter((n) => n < first)) copyFileSync(join(MIGRATIONS_DIR, name), join(dir, name));
  const db = await open({ migrations: dir });
  onTestFinished(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

/** The URL of a database the PostgreSQL driver opened, for a second pool (a second process) or openDatabase. */
export async function serverUrlOf(db: Db): Promise<string> {
  const [row] = await db.query<{ name: string }>('SELECT current_database() AS name');
  return serverDatabaseUrl(row!.name);
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db, Queryable } from './db.types.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Any fixed number: every process that migrates this database waits on the same lock. */
const MIGRATION_LOCK = 1_404_202_601;
const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

/**
 * Applies `dir`'s NNNN_name.sql files in order, each in its own transaction, recording each in
 * schema_migrations so it runs once. Each transaction first takes one advisory lock, so two
 * processes starting at once against one server apply every file once. Answers the files applied.
 */
export async function migrate(db: Db, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const files = migrationFiles(dir);
  const lock = (tx: Queryable) => tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);

  await db.transaction(async (tx) => {
    await lock(tx);
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  });

  const applied: string[] = [];
  for (const name of files) {
    const sql = readFileSync(join(dir, name), 'utf8');
    await db.transaction(async (tx) => {
      await lock(tx);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
      if (done.length > 0) return;
      try {
        await tx.query(sql);
      } catch (error) {
        throw new Error(`Migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      applied.push(name);
    });
  }
  return applied;
}

const migrationFiles = (dir: string) =>
  readdirSync(dir)
    .filter((name) => MIGRATION_FILE.test(name))
    .sort();

/**
 * The migrations of this code that the database has not applied: in production an instance
 * refuses to serve until `npm run db:migrate` has run them (issue 31), rather than migrating at
 * every instance's start.
 */
export async function pendingMigrations(db: Queryable, dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const [table] = await db.query<{ name: string | null }>(`SELECT to_regclass('schema_migrations')::text AS name`);
  const applied = new Set(
    table?.name ? (await db.query<{ name: string }>('SELECT name FROM schema_migrations')).map((row) => row.name) : [],
  );
  return migrationFiles(dir).filter((name) => !applied.has(name));
}

/** Thrown when the database's schema is older than the code (production never migrates at start). */
export class SchemaBehindError extends Error {
  pending: string[];
  constructor(pending: string[]) {
    super(
      `The database schema is older than this code: ${pending.length} migration(s) not applied (${pending.join(', ')}). ` +
        'Run `npm run db:migrate` against this database (deploy/deploy.sh release does, before the new revision takes traffic); this instance serves nothing until then.',
    );
    this.name = 'SchemaBehindError';
    this.pending = pending;
  }
}

import type { Db } from './db.ts';
import { migrate } from './migrate.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

/**
 * The shop's database, migrated: the PostgreSQL server at `databaseUrl` (DATABASE_URL) when set,
 * else PGlite keeping its data in `dataDir`.
 */
export async function openDatabase(options: { databaseUrl?: string | undefined; dataDir: string }): Promise<Db> {
  const db = options.databaseUrl ? await openPostgres(options.databaseUrl) : await openPglite(options.dataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

import type { Db } from './db.types.ts';
import { SchemaBehindError, migrate, pendingMigrations } from './migrate.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

/**
 * The shop's database: the PostgreSQL server at `databaseUrl` (DATABASE_URL) when set, else PGlite
 * keeping its data in `dataDir`. `schema: 'migrate'` (the default: `npm start`, the tests) applies
 * the pending migrations; `'require-current'` (production, main.ts) throws SchemaBehindError when
 * any is pending, since there `npm run db:migrate` runs once per release before traffic.
 */
export async function openDatabase(options: {
  databaseUrl?: string | undefined;
  dataDir: string;
  schema?: 'migrate' | 'require-current';
}): Promise<Db> {
  const db = options.databaseUrl ? await openPostgres(options.databaseUrl) : await openPglite(options.dataDir);
  try {
    if (options.schema === 'require-current') {
      const pending = await pendingMigrations(db);
      if (pending.length > 0) throw new SchemaBehindError(pending);
    } else {
      await migrate(db);
    }
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

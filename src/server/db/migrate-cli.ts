// `npm run db:migrate`: applies the pending migrations to DATABASE_URL (else the local PGlite data,
// SHOP_DATA_DIR), once per release and before the new revision takes traffic (deploy/deploy.sh runs
// it as a Cloud Run job from the same image). Prints what it applied. Exit 0: the schema is current;
// 1: a migration failed (nothing of that file applied: each runs in its own transaction).
import { migrate } from './migrate.ts';
import { DEFAULT_DATA_DIR, openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';

const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
const db = databaseUrl ? await openPostgres(databaseUrl) : await openPglite(process.env.SHOP_DATA_DIR?.trim() || DEFAULT_DATA_DIR);
try {
  const applied = await migrate(db);
  console.log(applied.length === 0 ? 'db:migrate: the schema is current' : `db:migrate: applied ${applied.join(', ')}`);
} catch (error) {
  console.error(`db:migrate: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.close();
}

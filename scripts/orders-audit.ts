// The order audit (issue 20, DESIGN 7): lists every order that breaks one of the money invariants
// of src/server/orders/audit.ts, then a count per invariant. Reads DATABASE_URL when set, else the
// PGlite data `npm start` keeps (SHOP_DATA_DIR, default .data/pglite; stop `npm start` first:
// PGlite is one process's). Exit 0: nothing broken; 1: findings; 2: the audit could not run.
// Usage: npm run orders:audit
import { existsSync } from 'node:fs';
import { DEFAULT_DATA_DIR } from '../src/server/db/pglite.ts';
import { openDatabase } from '../src/server/db/open.ts';
import { auditDatabase, auditReport } from '../src/server/orders/audit.ts';

const get = (name: string) => process.env[name]?.trim() || undefined;
// The same choice as src/server/config.ts (shopConfigFromEnv), without the keys the audit does not need.
const databaseUrl = get('DATABASE_URL');
const dataDir = get('SHOP_DATA_DIR') ?? DEFAULT_DATA_DIR;

try {
  if (!databaseUrl && !existsSync(dataDir))
    throw new Error(`no database: DATABASE_URL is unset and ${dataDir} does not exist (npm start creates it)`);
  const db = await openDatabase({ databaseUrl, dataDir });
  try {
    const { checked, findings } = await auditDatabase(db);
    for (const line of auditReport(findings, checked)) console.log(line);
    process.exitCode = findings.length === 0 ? 0 : 1;
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(`orders:audit could not run: ${(error as Error).message}`);
  process.exitCode = 2;
}

import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.types.ts';
import { INT8_OID, parseInt8 } from './types.ts';

/** Where PGlite keeps the shop's data without DATABASE_URL (`npm start`), unless SHOP_DATA_DIR says. */
export const DEFAULT_DATA_DIR = '.data/pglite';

type Runner = Pick<PGlite, 'query' | 'exec'> | Transaction;

/**
 * Without parameters a statement goes through the simple protocol, as `pg` does, so a migration
 * file of several statements runs on both drivers; its last statement's rows are answered.
 */
async function run<Row>(target: Runner, sql: string, params?: readonly unknown[]): Promise<Row[]> {
  if (params && params.length > 0) return (await target.query<Row>(sql, [...params])).rows;
  const results = await target.exec(sql);
  return (results.at(-1)?.rows ?? []) as Row[];
}

/**
 * PostgreSQL in-process (WASM): in memory without `dataDir`, else kept in that folder.
 * PGlite is one connection: its `query` and `transaction` share one mutex, so a transaction runs
 * alone and other queries wait until it ends.
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create({ ...(dataDir ? { dataDir } : {}), parsers: { [INT8_OID]: parseInt8 } });
  return {
    query: (sql, params) => run(pg, sql, params),
    // One connection in-process: nothing to gain from keeping a statement.
    prepared: (sql, params) => run(pg, sql, params),
    transaction: (work) =>
      pg.transaction((tx) => {
        const scoped: Queryable = { query: (sql, params) => run(tx, sql, params) };
        return work(scoped);
      }),
    // One connection, in-process: nothing to lose, so no gap.
    listen: async (channel, onNotify) => {
      const unlisten = await pg.listen(channel, onNotify);
      return () => unlisten();
    },
    close: () => pg.close(),
  };
}

import pg from 'pg';
import type { Db, Queryable } from './db.ts';
import { INT8_OID, parseInt8 } from './types.ts';

function rowsOf<Row>(result: pg.QueryResult | pg.QueryResult[]): Row[] {
  // Several statements without parameters (a migration file) answer one result each.
  const last = Array.isArray(result) ? result.at(-1) : result;
  return (last?.rows ?? []) as Row[];
}

/** A pool of connections to a PostgreSQL server (DATABASE_URL). */
export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    // Per pool rather than pg's global parsers, so nothing else in the process is changed.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
    },
  });
  // An idle connection the server drops must not crash the process; the next query reconnects.
  pool.on('error', (error) => console.error('PostgreSQL idle connection error:', error.message));
  // Fail at start, not on the first request, when the server cannot be reached.
  (await pool.connect()).release();

  const query = async <Row>(target: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) =>
    rowsOf<Row>((await target.query(sql, params ? [...params] : undefined)) as pg.QueryResult | pg.QueryResult[]);

  return {
    query: (sql, params) => query(pool, sql, params),
    async transaction(work) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const tx: Queryable = { query: (sql, params) => query(client, sql, params) };
        const result = await work(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // A connection that cannot roll back is not given back to the pool for reuse.
          broken = rollbackError as Error;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

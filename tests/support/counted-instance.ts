import { serveApi } from '../../scripts/lib/api-server.ts';
import type { Db } from '../../src/server/db/db.types.ts';
import { openPostgres } from '../../src/server/db/postgres.ts';
import { serverUrlOf, type DatabaseDriver } from './databases.ts';
import type { ShopTestBed } from './shop-test-bed.ts';

/**
 * The database as one API instance uses it, counting what that instance sends: its statements,
 * and its round trips to the server (a statement is one, a transaction its statements and two
 * more: BEGIN, COMMIT), with the start of each statement's SQL.
 */
export function counting(db: Db) {
  const counter = { statements: 0, roundTrips: 0, sql: [] as string[], db: undefined as unknown as Db };
  const count = <T>(sql: string, run: () => Promise<T>) => {
    counter.statements++;
    counter.roundTrips++;
    counter.sql.push(sql.replace(/\s+/g, ' ').slice(0, 80));
    return run();
  };
  counter.db = {
    query: (sql, params) => count(sql, () => db.query(sql, params)),
    prepared: (sql, params) => count(sql, () => db.prepared(sql, params)),
    transaction: (work) => {
      counter.roundTrips += 2;
      counter.sql.push('BEGIN … COMMIT');
      return db.transaction((tx) => work({ query: (sql, params) => count(sql, () => tx.query(sql, params)) }));
    },
    listen: (channel, onNotify, onGap) => db.listen(channel, onNotify, onGap),
    close: async () => {},
  };
  return counter;
}

/**
 * Another API instance on the test bed's database with connections of its own (on PostgreSQL a
 * pool of `connections` and a listening connection; PGlite is one connection in-process), served
 * on a free port and counting what it sends (`counting`).
 */
export async function countedInstance(bed: ShopTestBed, driver: DatabaseDriver, connections: number) {
  const own = driver.name === 'PostgreSQL' ? await openPostgres(await serverUrlOf(bed.db), { max: connections }) : undefined;
  const counter = counting(own ?? bed.db);
  const handler = bed.build({ db: counter.db });
  const api = await serveApi(handler);
  return {
    url: api.url,
    db: own ?? bed.db,
    counter,
    async close() {
      await handler.fulfilment.settled();
      await handler.alerts.stop();
      await api.close();
      await own?.close();
    },
  };
}

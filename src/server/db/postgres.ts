import pg from 'pg';
import type { Db, Queryable } from './db.types.ts';
import { INT8_OID, parseInt8 } from './types.ts';

function rowsOf<Row>(result: pg.QueryResult | pg.QueryResult[]): Row[] {
  // Several statements without parameters (a migration file) answer one result each.
  const last = Array.isArray(result) ? result.at(-1) : result;
  return (last?.rows ?? []) as Row[];
}

interface Subscriber {
  onNotify: (payload: string) => void;
  onGap: (() => void) | undefined;
}

/** How long a lost listening connection waits before connecting again: doubling from this… */
const RELISTEN_FIRST_MS = 250;
/** …up to this. */
const RELISTEN_MAX_MS = 30_000;

/**
 * LISTEN on one connection of its own, never a pooled one (a pool hands it to queries and drops
 * it when idle): made on the first listen, made again after a loss (every channel listened to
 * again, then each subscriber told of the gap, since notifications of the meantime are gone),
 * ended with the pool.
 */
function listener(url: string) {
  const channels = new Map<string, Set<Subscriber>>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let closed = false;

  const deliver = ({ channel, payload }: pg.Notification) => {
    for (const subscriber of channels.get(channel) ?? []) subscriber.onNotify(payload ?? '');
  };

  function connect(): Promise<void> {
    connecting ??= (async () => {
      const next = new pg.Client({ connectionString: url });
      next.on('notification', deliver);
      // The server or the network dropped it: 'end' follows, which connects again.
      next.on('error', (error) => console.error('PostgreSQL listening connection error:', error.message));
      next.on('end', () => {
        if (client !== next) return;
        client = undefined;
        reconnectLater();
      });
      try {
        await next.connect();
        for (const channel of channels.keys()) await next.query(`LISTEN ${next.escapeIdentifier(channel)}`);
      } catch (error) {
        await next.end().catch(() => {});
        throw error;
      }
      if (closed) return void (await next.end());
      client = next;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  function reconnectLater() {
    if (closed) return;
    retry = setTimeout(
      () =>
        connect().then(
          () => {
            failures = 0;
            for (const subscribers of channels.values()) for (const subscriber of subscribers) subscriber.onGap?.();
          },
          (error: Error) => {
            console.error('PostgreSQL listening connection not made again:', error.message);
            reconnectLater();
          },
        ),
      Math.min(RELISTEN_MAX_MS, RELISTEN_FIRST_MS * 2 ** failures++),
    );
    // A process shutting down does not wait for it.
    retry.unref();
  }

  return {
    async listen(channel: string, onNotify: (payload: string) => void, onGap?: () => void): Promise<() => Promise<void>> {
      if (closed) throw new Error('the database is closed');
      const subscriber: Subscriber = { onNotify, onGap };
      const subscribers = channels.get(channel) ?? new Set();
      const first = subscribers.size === 0;
      subscribers.add(subscriber);
      channels.set(channel, subscribers);
      const stop = async () => {
        subscribers.delete(subscriber);
        if (subscribers.size > 0 || channels.get(channel) !== subscribers) return;
        channels.delete(channel);
        await client?.query(`UNLISTEN ${client.escapeIdentifier(channel)}`).catch(() => {});
      };
      try {
        if (!client) await connect();
        // A connection made before this channel was added does not listen to it yet (LISTEN twice is harmless).
        if (first) await client?.query(`LISTEN ${client.escapeIdentifier(channel)}`);
      } catch (error) {
        await stop();
        throw error;
      }
      return stop;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await connecting?.catch(() => {});
      const last = client;
      client = undefined;
      await last?.end();
    },
  };
}

/** PostgreSQL's refusal of a kept statement whose result's columns changed since it was prepared. */
const isResultChanged = (error: unknown) =>
  (error as { code?: string }).code === '0A000' && /cached plan must not change result type/.test((error as Error).message);

/**
 * The connections one process holds at most: this many pooled, plus the one that LISTENs for order
 * changes (the long-polls' wake-ups). A long-poll holds none while it waits. Production counts them
 * against the database's limit (deploy/cloud-run-service.yaml, docs/going-live.md): two revisions
 * at once during a rollout, each at its maximum of instances, and the migration job.
 */
export const POSTGRES_POOL_MAX = 8;

/** A pool of connections to a PostgreSQL server (DATABASE_URL). */
export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? POSTGRES_POOL_MAX,
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
  const notifications = listener(url);

  const query = async <Row>(target: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) =>
    rowsOf<Row>((await target.query(sql, params ? [...params] : undefined)) as pg.QueryResult | pg.QueryResult[]);

  // Each prepared statement's name, by its text (pg prepares it on a connection the first time that
  // connection runs it); null once the server refused it.
  const statementNames = new Map<string, string | null>();

  return {
    query: (sql, params) => query(pool, sql, params),
    async prepared<Row>(sql: string, params?: readonly unknown[]) {
      let name = statementNames.get(sql);
      if (name === undefined) statementNames.set(sql, (name = `prepared_${statementNames.size + 1}`));
      if (name === null) return query<Row>(pool, sql, params);
      try {
        return rowsOf<Row>(await pool.query({ name, text: sql, values: params ? [...params] : [] }));
      } catch (error) {
        // A migration changed the columns a kept statement answers (a new column of `RETURNING *`):
        // the server refuses it on the connections that kept it. Outside a transaction nothing ran, so
        // it runs again unprepared, as it does from now on in this process (a new revision follows).
        if (!isResultChanged(error)) throw error;
        statementNames.set(sql, null);
        return query<Row>(pool, sql, params);
      }
    },
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
    listen: (channel, onNotify, onGap) => notifications.listen(channel, onNotify, onGap),
    async close() {
      await notifications.close();
      await pool.end();
    },
  };
}

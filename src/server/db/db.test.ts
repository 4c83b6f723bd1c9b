import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from './db.types.ts';
import { migrate } from './migrate.ts';
import { openDatabase } from './open.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import { databaseDrivers, serverUrlOf } from '../../../tests/support/databases.ts';

const GOOD = join(import.meta.dirname, '../../../tests/fixtures/migrations/good');
const BROKEN = join(import.meta.dirname, '../../../tests/fixtures/migrations/broken');

describe.each(databaseDrivers())('$name', ({ open }) => {
  let db: Db;
  beforeEach(async () => {
    db = await open({ migrations: false });
  });
  afterEach(async () => {
    await db.close();
  });

  it('runs a statement with parameters', async () => {
    await db.query('CREATE TABLE items (id integer PRIMARY KEY, name text)');
    await db.query('INSERT INTO items VALUES ($1, $2), ($3, $4)', [1, 'one', 2, 'two']);
    expect(await db.query('SELECT name FROM items WHERE id = $1', [2])).toEqual([{ name: 'two' }]);
  });

  it('runs a prepared statement again and again with new parameters', async () => {
    await db.query('CREATE TABLE items (id integer PRIMARY KEY, name text)');
    for (const [id, name] of [
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ] as const) {
      expect(await db.prepared('INSERT INTO items VALUES ($1, $2) RETURNING name', [id, name])).toEqual([{ name }]);
    }
  });

  it('runs several statements sent without parameters and answers the last one’s rows', async () => {
    const rows = await db.query(
      "CREATE TABLE a (x integer); INSERT INTO a VALUES (7); SELECT x, count(*) OVER () AS c, '{}'::jsonb AS j FROM a",
    );
    expect(rows).toEqual([{ x: 7, c: 1, j: {} }]);
  });

  it('answers int8 as a number, timestamptz as a Date and jsonb as parsed JSON', async () => {
    const at = new Date('2026-03-01T12:34:56.789Z');
    const rows = await db.query(
      `SELECT $1::int8 + 1 AS n, count(*) AS c, $2::timestamptz AS at, $3::jsonb AS obj, $4::jsonb AS list
         FROM (VALUES (1), (2)) AS v(x)`,
      [9_007_199_254_740_990, at, { plan: { gb: 5, name: 'Ελλάδα' } }, JSON.stringify([1, 'two'])],
    );
    expect(rows).toEqual([{ n: 9_007_199_254_740_991, c: 2, at, obj: { plan: { gb: 5, name: 'Ελλάδα' } }, list: [1, 'two'] }]);
  });

  it('refuses an int8 beyond what a JS number holds exactly', async () => {
    await expect(db.query('SELECT $1::int8 + 2 AS n', [9_007_199_254_740_990])).rejects.toThrow(/9007199254740992/);
  });

  it('keeps nothing of a transaction that throws, and answers a transaction’s result', async () => {
    await db.query('CREATE TABLE t (x integer)');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES ($1)', [1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await db.transaction(async (tx) => (await tx.query('INSERT INTO t VALUES (2) RETURNING x'))[0])).toEqual({ x: 2 });
    expect(await db.query('SELECT x FROM t')).toEqual([{ x: 2 }]);
  });

  it('applies each migration once, in order, and skips those already applied', async () => {
    expect(await migrate(db, GOOD)).toEqual(['0001_notes.sql', '0002_tags.sql']);
    expect(await migrate(db, GOOD)).toEqual([]);
    expect(await db.query('SELECT body, tags FROM notes')).toEqual([{ body: 'first', tags: [] }]);
    const recorded = await db.query<{ name: string; applied_at: Date }>('SELECT name, applied_at FROM schema_migrations ORDER BY name');
    expect(recorded.map((r) => r.name)).toEqual(['0001_notes.sql', '0002_tags.sql']);
    expect(recorded[0]!.applied_at).toBeInstanceOf(Date);
  });

  it('fails naming a broken migration and keeps neither its changes nor a record of it', async () => {
    await expect(migrate(db, BROKEN)).rejects.toThrow(/0002_broken\.sql.*no_such_table/);
    expect(await db.query('SELECT name FROM schema_migrations')).toEqual([{ name: '0001_notes.sql' }]);
    expect(await db.query("SELECT to_regclass('half_done') AS t")).toEqual([{ t: null }]);
  });
});

describe('PostgreSQL server', () => {
  const [, server] = databaseDrivers();
  let db: Db;
  let other: Db;
  beforeEach(async () => {
    db = await server!.open({ migrations: false });
    other = await openPostgres(await serverUrlOf(db), { max: 2 });
  });
  afterEach(async () => {
    await other.close();
    await db.close();
  });

  it('applies each migration once when two processes migrate it at the same time', async () => {
    const [a, b] = await Promise.all([migrate(db, GOOD), migrate(other, GOOD)]);
    expect([...a, ...b].sort()).toEqual(['0001_notes.sql', '0002_tags.sql']);
    expect(await db.query('SELECT body FROM notes')).toEqual([{ body: 'first' }]);
  });

  it('keeps answering a prepared statement after a migration (by another process) changed the columns it answers', async () => {
    await db.query('CREATE TABLE items (id integer PRIMARY KEY, name text)');
    const insert = 'INSERT INTO items (id, name) VALUES ($1, $2) RETURNING *';
    // Prepared on both of this pool's connections.
    await Promise.all([other.prepared(insert, [1, 'one']), other.prepared(insert, [2, 'two'])]);
    await db.query('ALTER TABLE items ADD COLUMN note text');
    expect(await other.prepared(insert, [3, 'three'])).toEqual([{ id: 3, name: 'three', note: null }]);
    expect(await other.prepared(insert, [4, 'four'])).toEqual([{ id: 4, name: 'four', note: null }]);
    expect(await db.query('SELECT id FROM items ORDER BY id')).toEqual([1, 2, 3, 4].map((id) => ({ id })));
  });

  it('deletes a test’s database on the server when it is closed', async () => {
    const extra = await server!.open({ migrations: false });
    const [row] = await extra.query<{ name: string }>('SELECT current_database() AS name');
    await extra.close();
    expect(await db.query('SELECT 1 FROM pg_database WHERE datname = $1', [row!.name])).toEqual([]);
  });

  it('is what openDatabase opens and migrates when given a URL, leaving dataDir alone', async () => {
    const dataDir = join(tmpdir(), `shop-db-unused-${process.pid}`);
    const opened = await openDatabase({ databaseUrl: await serverUrlOf(db), dataDir });
    try {
      await opened.query('CREATE TABLE made_through_url (x integer)');
    } finally {
      await opened.close();
    }
    expect(await db.query("SELECT to_regclass('made_through_url')::text AS t, to_regclass('schema_migrations')::text AS m")).toEqual([
      { t: 'made_through_url', m: 'schema_migrations' },
    ]);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('PGlite, one connection', () => {
  let db: Db;
  beforeEach(async () => {
    db = await openPglite();
    await db.query('CREATE TABLE counter (n integer NOT NULL); INSERT INTO counter VALUES (0)');
  });
  afterEach(async () => {
    await db.close();
  });

  it('runs concurrent transactions one after the other', async () => {
    const bump = async () => {
      for (let i = 0; i < 50; i++) {
        await db.transaction(async (tx) => {
          const [row] = await tx.query<{ n: number }>('SELECT n FROM counter');
          await tx.query('UPDATE counter SET n = $1', [row!.n + 1]);
        });
      }
    };
    await Promise.all([bump(), bump()]);
    expect(await db.query('SELECT n FROM counter')).toEqual([{ n: 100 }]);
  });

  it('keeps a plain statement sent while a transaction is open when that transaction rolls back', async () => {
    let plain: Promise<unknown> = Promise.resolve();
    await expect(
      db.transaction(async (tx) => {
        await tx.query('UPDATE counter SET n = n + 10');
        plain = db.query('UPDATE counter SET n = n + 1');
        await tx.query('SELECT pg_sleep(0)');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await plain;
    expect(await db.query('SELECT n FROM counter')).toEqual([{ n: 1 }]);
  });
});

describe('openDatabase without a URL', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'shop-db-')), 'data');
  afterAll(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it('migrates PGlite in dataDir and keeps its data across close and reopen', async () => {
    const first = await openDatabase({ dataDir });
    await first.query('CREATE TABLE kept (x text)');
    await first.query('INSERT INTO kept VALUES ($1)', ['still here']);
    await first.close();
    const second = await openDatabase({ dataDir });
    try {
      expect(await second.query('SELECT x FROM kept')).toEqual([{ x: 'still here' }]);
      // Migrated: the runner's record exists (which files it holds is the shop's business).
      await expect(second.query('SELECT name FROM schema_migrations')).resolves.toBeInstanceOf(Array);
    } finally {
      await second.close();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/db.ts';
import { due, DUE_ORDERS_SQL } from './queue.ts';
import { databaseDrivers } from '../../../tests/support/databases.ts';

// The reconcile job asks every instance's every tick which orders are due: among many finished
// orders it must find exactly the few with work left, and through an index, not by reading them all.

/** Orders with only the columns the queue looks at set; the rest are whatever a sale leaves. */
async function insertOrders(db: Db, count: number, { hold, ...columns }: Record<string, string>): Promise<string[]> {
  const names = Object.keys(columns);
  const rows = await db.query<{ id: string }>(
    `INSERT INTO orders (id, uid, email, plan_id, destination, plan, partner_code, wholesale_usd_e4, amount_minor, currency, lang
                         ${names.map((name) => `, ${name}`).join('')})
     SELECT gen_random_uuid(), 'uid', 'buyer@example.com', 'jp-1gb-7d', 'jp', '{}', 'P1', 5000, 499, 'EUR', 'en'
            ${names.map((name) => `, ${columns[name]}`).join('')}
     FROM generate_series(1, ${count}) RETURNING id`,
  );
  // The fraud hold is a row of its own (order_holds, migration 0040).
  if (hold)
    await db.query(`INSERT INTO order_holds (order_id, hold, held_at) SELECT id, ${hold}, now() FROM unnest($1::uuid[]) AS id`, [
      rows.map((row) => row.id),
    ]);
  return rows.map((row) => row.id);
}

async function insertRefund(db: Db, orderId: string, status: string): Promise<void> {
  await db.query(
    `INSERT INTO refunds (id, order_id, requested_by, reason, amount_minor, currency, status, idempotency_key)
     VALUES ($1::uuid, $2, 'buyer', 'requested', 100, 'EUR', $3, $1::text)`,
    [randomUUID(), orderId, status],
  );
}

describe.each(databaseDrivers())('the reconcile queue on $name', ({ open }) => {
  let db: Db;
  const expected: string[] = [];
  beforeAll(async () => {
    db = await open();
    // Finished orders, the bulk of any shop's table.
    const finished = await insertOrders(db, 5000, { state: `'delivered'`, email_sent_at: 'now()' });
    await insertOrders(db, 50, { state: `'refunded'`, refund_reason: `'requested'`, email_sent_at: 'now()' });
    // Work left: paid, a refund owed its e-mail, a delivered one owed its e-mail, a finished one with an open refund.
    expected.push(...(await insertOrders(db, 2, { state: `'paid'` })));
    expected.push(...(await insertOrders(db, 1, { state: `'paid'`, hold: `'approved'` })));
    expected.push(...(await insertOrders(db, 1, { state: `'refunded'`, refund_reason: `'not_delivered'` })));
    expected.push(...(await insertOrders(db, 1, { state: `'delivered'` })));
    await insertRefund(db, finished[0]!, 'pending');
    expected.push(finished[0]!);
    // Not due: held for an admin, tried again later, or held by a worker; a settled refund.
    await insertOrders(db, 1, { state: `'paid'`, hold: `'held'` });
    await insertOrders(db, 1, { state: `'provisioning'`, next_attempt_at: `now() + interval '1 hour'` });
    await insertOrders(db, 1, { state: `'provisioning'`, locked_until: `now() + interval '1 hour'` });
    await insertRefund(db, finished[1]!, 'succeeded');
    await db.query('ANALYZE');
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it('finds exactly the orders with work left whose time has come and that nobody holds', async () => {
    expect((await due(db, 50)).sort()).toEqual([...expected].sort());
  });

  it('gives at most the limit asked for', async () => {
    expect(await due(db, 2)).toHaveLength(2);
  });

  it('reaches them through indexes instead of reading every order', async () => {
    const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${DUE_ORDERS_SQL}`, [50]);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toContain('orders_to_reconcile');
    expect(plan).not.toMatch(/Seq Scan on orders/);
  });
});

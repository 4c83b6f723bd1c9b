import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase, openBefore } from '../../../tests/support/databases.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import { migrate } from '../db/migrate.ts';
import { decideOutcome, voidOutcome } from './purchase-outcome.ts';

/**
 * The one function that decides a purchase's outcome (issue 46 item 1), and the migration that
 * writes what the rows before it had already decided, on PGlite and a real PostgreSQL server.
 */
async function order(
  db: Queryable,
  fields: { state?: string; amountMinor?: number; replaces?: string } = {},
  /** The schema of a database before migration 0040, whose order row still held the consents and the replacement's links. */
  before0040 = false,
): Promise<string> {
  const { state = 'delivered', amountMinor = 1000, replaces = null } = fields;
  const id = randomUUID();
  // Before 0040 the row held the consents; before 0046 the partner's code and price.
  const before = before0040
    ? [
        'partner_code, wholesale_usd_e4, terms_version, terms_accepted_at, immediate_start_requested_at,',
        "'P1', 5000, '2026-01', now(), now(),",
      ]
    : ['', ''];
  await db.query(
    `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, ${before[0]} kind)
     VALUES ($1, $2, 'buyer@example.com', $3, 'de-1gb-7d', 'DE', '{}'::jsonb, $4, 'EUR', 'en', ${before[1]} 'esim')`,
    [id, `uid-${id}`, state, amountMinor],
  );
  if (replaces && before0040) {
    await db.query('UPDATE orders SET replaces = $2 WHERE id = $1', [id, replaces]);
    await db.query('UPDATE orders SET replaced_by = $1 WHERE id = $2', [id, replaces]);
  } else if (replaces) {
    await db.query(`INSERT INTO order_links (order_id, link, of_order_id) VALUES ($1, 'replacement', $2)`, [id, replaces]);
  }
  if (amountMinor > 0)
    await db.query(
      `INSERT INTO payments (order_id, provider, checkout_session_id, status, amount_minor, currency) VALUES ($1, 'stripe', $2, 'paid', $3, 'EUR')`,
      [id, `cs_${id}`, amountMinor],
    );
  return id;
}

async function refund(
  db: Queryable,
  orderId: string,
  fields: { amountMinor?: number; reason?: string; by?: 'buyer' | 'operator' | 'system'; status?: string } = {},
) {
  const { amountMinor = 1000, reason = 'requested', by = 'buyer', status = 'succeeded' } = fields;
  await db.query(
    `INSERT INTO refunds (id, order_id, requested_by, operator_uid, reason, amount_minor, currency, status, idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6, 'EUR', $7, $8)`,
    [randomUUID(), orderId, by, by === 'operator' ? 'op-1' : null, reason, amountMinor, status, randomUUID()],
  );
}

const outcomes = async (db: Queryable, id: string) =>
  db.query<{ outcome: string; voided: boolean }>(
    'SELECT outcome, voided_at IS NOT NULL AS voided FROM purchase_outcomes WHERE order_id = $1 ORDER BY id',
    [id],
  );

describe.each(databaseDrivers())('one outcome per purchase on $name', ({ open }) => {
  let db: Db;
  withDatabase(open, (opened) => (db = opened));

  it('decides once: the same again is the same decision, another outcome is answered with the first, nothing written', async () => {
    const id = await order(db);
    const replacement = await order(db, { amountMinor: 0 });
    const ask = (outcome: 'refunded' | 'replaced', byOrderId?: string) =>
      db.transaction((tx) => decideOutcome(tx, { orderId: id, outcome, askedBy: 'buyer', byOrderId, cause: 'test' }));
    expect(await ask('replaced', replacement)).toEqual({ decided: true });
    expect(await ask('replaced', replacement)).toEqual({ decided: true });
    expect(await ask('replaced', randomUUID())).toEqual({ decided: false, outcome: 'replaced' });
    expect(await ask('refunded')).toEqual({ decided: false, outcome: 'replaced' });
    expect(await outcomes(db, id)).toEqual([{ outcome: 'replaced', voided: false }]);
  });

  it('turns replaced into refunded only for the shop (a replacement that failed), and a voided refund leaves it kept', async () => {
    const id = await order(db);
    await db.transaction((tx) => decideOutcome(tx, { orderId: id, outcome: 'replaced', askedBy: 'buyer', cause: 'test' }));
    expect(
      await db.transaction((tx) =>
        decideOutcome(tx, { orderId: id, outcome: 'refunded', askedBy: 'operator', operatorUid: 'op', cause: 'x' }),
      ),
    ).toEqual({ decided: false, outcome: 'replaced' });
    expect(
      await db.transaction((tx) => decideOutcome(tx, { orderId: id, outcome: 'refunded', askedBy: 'system', cause: 'replacement_failed' })),
    ).toEqual({ decided: true });
    expect(await outcomes(db, id)).toEqual([
      { outcome: 'replaced', voided: true },
      { outcome: 'refunded', voided: false },
    ]);

    const installed = await order(db);
    await db.transaction((tx) => decideOutcome(tx, { orderId: installed, outcome: 'refunded', askedBy: 'buyer', cause: 'requested' }));
    await db.transaction((tx) => voidOutcome(tx, installed, 'installed before its refund'));
    expect(await outcomes(db, installed)).toEqual([{ outcome: 'refunded', voided: true }]);
    // Kept again: a replacement may be decided now.
    expect(
      await db.transaction((tx) => decideOutcome(tx, { orderId: installed, outcome: 'replaced', askedBy: 'buyer', cause: 'test' })),
    ).toEqual({ decided: true });
  });

  it('migration 0032 writes what the rows before it decided, one outcome each, the first it finds of two', async () => {
    // The database as it was before 0032, with purchases in every outcome and one that got two.
    const db = await openBefore(open, '0032');
    const kept = await order(db, {}, true);
    const part = await order(db, {}, true);
    await refund(db, part, { amountMinor: 300, by: 'operator', reason: 'operator' });
    const refunded = await order(db, { state: 'refunded' }, true);
    await refund(db, refunded);
    const voided = await order(db, {}, true);
    await refund(db, voided, { status: 'cancelled' });
    const replaced = await order(db, {}, true);
    await order(db, { amountMinor: 0, replaces: replaced }, true);
    const failedReplacement = await order(db, { state: 'refunded' }, true);
    await order(db, { amountMinor: 0, replaces: failedReplacement, state: 'refunded' }, true);
    await refund(db, failedReplacement, { by: 'system', reason: 'not_delivered' });
    const exchanged = await order(db, { state: 'refunded' }, true);
    await refund(db, exchanged, { reason: 'exchanged' });
    const both = await order(db, { state: 'refunded' }, true);
    await order(db, { amountMinor: 0, replaces: both }, true);
    await refund(db, both, { reason: 'exchanged' });

    expect(await migrate(db)).toContain('0032_purchase_outcomes.sql');
    const found = async (id: string) => (await outcomes(db, id)).map((o) => o.outcome);
    expect(await found(kept)).toEqual([]);
    expect(await found(part)).toEqual([]);
    expect(await found(refunded)).toEqual(['refunded']);
    expect(await found(voided)).toEqual([]);
    expect(await found(replaced)).toEqual(['replaced']);
    expect(await found(failedReplacement)).toEqual(['refunded']);
    expect(await found(exchanged)).toEqual(['exchanged']);
    expect(await found(both)).toEqual(['replaced']);
  }, 120_000);
});

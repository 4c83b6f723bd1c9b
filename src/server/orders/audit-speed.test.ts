import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import { auditDatabase, auditOrders } from './audit.ts';

/**
 * The audit's speed on a shop of 10,000 orders, on both drivers. It measures time, so it runs in
 * the \`timed\` project (vitest.config.ts): alone, after the other files.
 */
describe.each(databaseDrivers())('the order audit on $name', ({ open }) => {
  let db: Db;
  withDatabase(open, (opened) => (db = opened));

  it('audits 10,000 orders in well under a second', async () => {
    await db.query(`
      INSERT INTO orders (id, uid, state, plan_id, destination, plan, amount_minor, currency, lang)
      SELECT gen_random_uuid(), 'uid-' || i, (ARRAY['delivered', 'refunded', 'expired', 'pending_payment'])[1 + i % 4], 'plan-' || i, 'DE',
        '{}'::jsonb, 1000, 'EUR', 'en'
      FROM generate_series(1, 10000) AS i`);
    // Each refunded order's refund (the shop's, the whole payment), and an operator's part of every fifth delivered one.
    await db.query(`
      INSERT INTO refunds (id, order_id, requested_by, operator_uid, reason, amount_minor, currency, status, stripe_refund_id, asks,
        idempotency_key)
      SELECT gen_random_uuid(), id, 'system', NULL, 'not_delivered', 1000, 'EUR', 'succeeded', 're_' || id, 1, 'system:' || id
      FROM orders WHERE state = 'refunded'
      UNION ALL
      SELECT gen_random_uuid(), id, 'operator', 'op-1', 'operator', 400, 'EUR', 'succeeded', 're_part_' || id, 1, 'operator:' || id
      FROM orders WHERE state = 'delivered' AND number % 5 = 0`);
    await db.query(`
      INSERT INTO payments (order_id, provider, checkout_session_id, status, amount_minor, currency, created_at)
      SELECT id, 'stripe', 'cs_' || id, 'paid', 1000, 'EUR', now() - interval '1 day' FROM orders WHERE state IN ('delivered', 'refunded')`);
    await db.query(`
      INSERT INTO esims (partner, esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, total_bytes, validity_days)
      SELECT 'esim-access', 'T' || id, id, '89', 'LPA:1$s$m', 's', 'm', CASE WHEN state = 'refunded' THEN 'cancelled' ELSE 'active' END, 1, 7
      FROM orders WHERE state IN ('delivered', 'refunded')`);
    await db.query(`
      INSERT INTO partner_writes (order_id, call, outcome, partner) SELECT id, 'esim/order', 'applied', 'esim-access' FROM orders WHERE state IN ('delivered', 'refunded');
      INSERT INTO order_emails (order_id, kind) SELECT id, 'order' FROM orders WHERE state IN ('delivered', 'refunded');
      INSERT INTO order_emails (order_id, kind) SELECT id, 'refund' FROM orders WHERE state = 'refunded';
      ANALYZE`);
    await auditOrders(db); // warm
    const started = performance.now();
    const { checked, findings } = await auditDatabase(db);
    const took = performance.now() - started;
    expect({ checked, findings }).toEqual({ checked: 10_000, findings: [] });
    console.log(`orders:audit on 10,000 orders: ${took.toFixed(0)} ms`);
    expect(took).toBeLessThan(1_000);
  });
});

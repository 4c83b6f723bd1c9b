import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDrivers } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import { jobByKey } from '../jobs/queue.ts';
import { crossingOf } from './crossing.ts';
import * as store from './store.ts';

/**
 * Automatic top-ups as stored (issue 49, migration 0051), on PGlite and PostgreSQL: one top-up per
 * crossing however often and however concurrently it is seen, the limits' sums, refusals in a row,
 * and an account's deletion; and when an eSIM has crossed 10 % left.
 */
describe.each(databaseDrivers())('automatic top-ups stored on $name', (driver) => {
  let db: Db;
  beforeAll(async () => {
    db = await driver.open();
  });
  afterAll(() => db.close());

  async function order(fields: { kind?: 'esim' | 'auto'; topUpOf?: string; state?: string; amountMinor?: number } = {}): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, kind, top_up_of)
       VALUES ($1, 'buyer-1', 'buyer@example.com', $2, 'de-1gb-7d', 'DE', '{}'::jsonb, $3, 'EUR', 'de', $4, $5)`,
      [id, fields.state ?? 'delivered', fields.amountMinor ?? 500, fields.kind ?? 'esim', fields.topUpOf ?? null],
    );
    return id;
  }
  const setting = (esimOrderId: string) => ({
    esimOrderId,
    uid: 'buyer-1',
    packageId: null,
    maxCount: 2,
    monthlyCapMinor: 1_000,
    currency: 'EUR',
    consentText: 'Wenn noch 10 % übrig sind …',
    consentLang: 'de',
  });

  it('makes one top-up due per crossing, however often and however many at once see it, each with its job', async () => {
    const esim = await order();
    const seen = await Promise.all(Array.from({ length: 5 }, () => db.transaction((tx) => store.markCrossing(tx, esim, 'data:0'))));
    expect(seen.filter(Boolean)).toHaveLength(1);
    expect(await db.transaction((tx) => store.markCrossing(tx, esim, 'data:0'))).toBe(false);
    // The next round is a crossing of its own.
    expect(await db.transaction((tx) => store.markCrossing(tx, esim, 'data:1'))).toBe(true);
    expect(await store.autoTopUpOf(db, esim, 'data:0')).toMatchObject({ state: 'due', order_id: null });
    expect(await jobByKey(db, store.autoTopUpJobKey(esim, 'data:0'))).toMatchObject({ kind: 'auto_top_up', state: 'pending' });
  });

  it('counts what was charged for the limits: paid and not refunded, this calendar month', async () => {
    const esim = await order();
    const pay = async (state: string, amountMinor: number, at: Date) => {
      const auto = await order({ kind: 'auto', topUpOf: esim, state, amountMinor });
      await db.query(
        `INSERT INTO payments (order_id, provider, payment_intent_id, status, amount_minor, currency, created_at)
         VALUES ($1, 'stripe', $2, 'paid', $3, 'EUR', $4)`,
        [auto, `pi_${auto}`, amountMinor, at],
      );
    };
    await pay('delivered', 400, new Date('2026-12-02T10:00:00Z'));
    await pay('delivered', 300, new Date('2026-11-30T23:00:00Z'));
    await pay('refunded', 900, new Date('2026-12-02T11:00:00Z'));
    // Refused by the bank: never paid, never counted.
    await order({ kind: 'auto', topUpOf: esim, state: 'payment_failed', amountMinor: 700 });
    expect(await store.spentOn(db, esim, new Date('2026-12-03T12:00:00Z'))).toEqual({ count: 2, thisMonthMinor: 400 });
  });

  it('counts refusals in a row until a charge goes through, records every change, and forgets the account but keeps the consent', async () => {
    const esim = await order();
    await db.transaction((tx) => store.saveSetting(tx, setting(esim), 'buyer'));
    expect(await db.transaction((tx) => store.countRefusal(tx, esim, true))).toBe(1);
    expect(await db.transaction((tx) => store.countRefusal(tx, esim, true))).toBe(2);
    expect(await db.transaction((tx) => store.countRefusal(tx, esim, false))).toBe(0);
    expect(await db.transaction((tx) => store.turnOff(tx, esim, 'e-mail link', 'turned off from an e-mail'))).toBe(true);
    expect(await db.transaction((tx) => store.turnOff(tx, esim, 'buyer', 'again'))).toBe(false);
    await db.transaction((tx) => store.forgetAutoTopUpOwner(tx, 'buyer-1'));
    expect(await store.settingOf(db, esim)).toMatchObject({ uid: null, enabled: false, consent_text: 'Wenn noch 10 % übrig sind …' });
    const changes = await db.query<{ by: string; change: string }>(
      'SELECT by, change FROM auto_top_up_changes WHERE esim_order_id = $1 ORDER BY id',
      [esim],
    );
    expect(changes).toEqual([
      { by: 'buyer', change: 'on: cheapest, at most 2, 1000 EUR a month' },
      { by: 'e-mail link', change: 'off: turned off from an e-mail' },
    ]);
  });

  it('finds the eSIMs they are on for whose usage nobody read for a while and whose round has no crossing yet, the oldest first', async () => {
    const esim = async (status: string, readMinutesAgo: number | null, on = true) => {
      const id = await order();
      await db.query(
        `INSERT INTO esims (partner, esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, total_bytes, validity_days,
           usage_checked_at)
         VALUES ('esim-access', $1, $2, '89', 'LPA:1$s$m', 's', 'm', $3, 1000, 7, now() - make_interval(mins => $4::integer))`,
        [`T${id}`, id, status, readMinutesAgo],
      );
      await db.transaction((tx) => store.saveSetting(tx, setting(id), 'buyer'));
      if (!on) await db.transaction((tx) => store.turnOff(tx, id, 'buyer', 'test'));
      return id;
    };
    const stale = await esim('active', 30);
    const staler = await esim('used_up', 60);
    const fresh = await esim('active', 1);
    const off = await esim('active', 60, false);
    const ready = await esim('ready', 60);
    const crossed = await esim('active', 90);
    await db.transaction((tx) => store.markCrossing(tx, crossed, 'data:0'));
    const found = (await store.unreadWatched(db, 10 * 60_000, 100)).map((e) => e.esim_tran_no.slice(1));
    expect(found.filter((id) => [stale, staler, fresh, off, ready, crossed].includes(id))).toEqual([staler, stale]);
  });

  it('records an off-session charge once per payment intent, with no Checkout Session', async () => {
    const auto = await order({ kind: 'auto', topUpOf: await order(), state: 'pending_payment' });
    const insert = () =>
      db.query(
        `INSERT INTO payments (order_id, provider, payment_intent_id, status, amount_minor, currency) VALUES ($1, 'stripe', 'pi_1', 'paid', 500, 'EUR')
         ON CONFLICT DO NOTHING`,
        [auto],
      );
    await insert();
    await insert();
    expect(await db.query('SELECT 1 FROM payments WHERE order_id = $1', [auto])).toHaveLength(1);
  });
});

describe('the crossing of 10 % left', () => {
  const delivered = { state: 'delivered', kind: 'esim' } as const;
  const esim = (used: number, status = 'active', round = 0) =>
    ({ status, total_bytes: 1_000, used_bytes: used, data_round: round }) as Parameters<typeof crossingOf>[1];

  it('is the data round once 10 % or less is left, or the eSIM is used up, for a plan with one volume', () => {
    expect(crossingOf(delivered, esim(899), 'total')).toBeUndefined();
    expect(crossingOf(delivered, esim(900), 'total')).toBe('data:0');
    expect(crossingOf(delivered, esim(1_000, 'used_up', 3), 'total')).toBe('data:3');
    expect(crossingOf(delivered, esim(10, 'used_up'), 'total')).toBe('data:0');
  });

  it('is never for a daily or unlimited plan, an ended eSIM, or a top-up’s or undelivered order', () => {
    expect(crossingOf(delivered, esim(950), 'daily')).toBeUndefined();
    expect(crossingOf(delivered, esim(950, 'expired'), 'total')).toBeUndefined();
    expect(crossingOf({ state: 'refund_requested', kind: 'esim' }, esim(950), 'total')).toBeUndefined();
    expect(crossingOf({ state: 'delivered', kind: 'auto' }, esim(950), 'total')).toBeUndefined();
  });
});

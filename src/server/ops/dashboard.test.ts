import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import { paidOrders } from '../../../tests/support/paid-orders.ts';
import { LOW_BALANCE_USD } from '../../config/constants.ts';
import type { Db } from '../db/db.types.ts';
import { pauseSales, pauseSalesByOperator } from '../orders/sales-pause.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import { partnerRegistry } from '../partner/registry.ts';
import { berlinMidnight, dashboard } from './dashboard.ts';

/**
 * The back office's business figures (issue 30 item 8) for a known set of orders, on PGlite and a
 * real PostgreSQL server. The day after Berlin moved to summer time (29 March 2026), so "today"
 * starts at 22:00 UTC and 7 and 30 days back at 23:00 UTC.
 */
const NOW = new Date('2026-03-30T10:00:00Z');
/** The applied rates, units per euro (the ECB's of the fixture day): 5 USD of wholesale is €4.30 (429.99 cents). */
const RATES = {
  date: '2026-03-27',
  applied: { USD: 1.1628, GBP: 0.878, CHF: 0.931, PLN: 4.235, JPY: 181.2, CAD: 1.625, AUD: 1.785, BRL: 6.21 },
};
/** eSIM Access with this balance, and eSIM Go with USD 50. */
const partnerWith = (balance: () => Promise<number>) =>
  partnerRegistry({
    'esim-access': { name: 'eSIM Access', balance } as unknown as EsimPartner,
    'esim-go': { name: 'eSIM Go', balance: async () => 50 * 10_000 } as unknown as EsimPartner,
  });

describe('berlinMidnight', () => {
  it('is 00:00 in Berlin, in summer and winter time', () => {
    expect(berlinMidnight(NOW).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(berlinMidnight(NOW, 6).toISOString()).toBe('2026-03-23T23:00:00.000Z');
    expect(berlinMidnight(new Date('2026-03-29T21:59:00Z')).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(berlinMidnight(new Date('2026-10-25T12:00:00Z'), -1).toISOString()).toBe('2026-10-25T23:00:00.000Z');
  });
});

describe.each(databaseDrivers())('the dashboard on $name', ({ open }) => {
  let db: Db;
  withDatabase(open, (opened) => (db = opened), { truncate: 'orders, payments, refunds, sales_pauses, operator_actions' });

  it('adds up orders paid, gross, VAT, wholesale, Stripe fees, refunds and margin for today, 7 and 30 days', async () => {
    const data = paidOrders(db);
    const today = await data.order({
      createdAt: new Date('2026-03-30T07:55:00Z'),
      paidAt: new Date('2026-03-30T08:00:00Z'),
      amountMinor: 1199,
      wholesaleUsdE4: 50_000,
      stripeFeeMinor: 43,
    });
    // 23:30 in Berlin the day before: yesterday, not today, though the same UTC date as "today" starts.
    await data.order({
      destination: 'FR',
      createdAt: new Date('2026-03-29T21:25:00Z'),
      paidAt: new Date('2026-03-29T21:30:00Z'),
      amountMinor: 999,
      wholesaleUsdE4: 40_000,
    });
    const tenDaysAgo = await data.order({
      createdAt: new Date('2026-03-20T12:00:00Z'),
      paidAt: new Date('2026-03-20T12:00:00Z'),
      amountMinor: 2499,
      wholesaleUsdE4: 100_000,
      stripeFeeMinor: 60,
    });
    // 23:30 in Berlin on 28 February: before the 30 days.
    const older = await data.order({
      createdAt: new Date('2026-02-28T22:00:00Z'),
      paidAt: new Date('2026-02-28T22:30:00Z'),
      amountMinor: 500,
      destination: 'IT',
    });
    // Never paid, or its payment failed: not an order of the business.
    await data.order({ createdAt: new Date('2026-03-30T09:00:00Z'), destination: 'ES' });
    await data.order({
      createdAt: new Date('2026-03-30T09:00:00Z'),
      paidAt: new Date('2026-03-30T09:01:00Z'),
      paymentStatus: 'failed',
      destination: 'ES',
    });
    // Refunds count when they succeeded, in the period they were made in.
    await data.refund(tenDaysAgo, 1000, new Date('2026-03-30T09:00:00Z'));
    await data.refund(older, 500, new Date('2026-03-10T09:00:00Z'));
    await data.refund(today, 300, new Date('2026-03-30T09:30:00Z'), 'pending');

    const answer = await dashboard(
      db,
      partnerWith(async () => 1_234_5678),
      RATES,
      NOW,
    );
    const eur = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });
    expect(answer.periods).toEqual([
      {
        days: 1,
        orders: 1,
        gross: eur(1199),
        estimatedOrders: 0,
        vat: eur(191),
        wholesaleUsd: 5,
        stripeFees: eur(43),
        refunds: eur(1000),
        // 1199 − 191 VAT − 430 wholesale (5 USD × 0.86) − 43 fee, less the refund net of VAT (1000 − 160).
        margin: eur(-305),
        topDestinations: [{ destination: 'DE', orders: 1 }],
        byCurrency: [{ currency: 'EUR', orders: 1, gross: eur(1199) }],
      },
      {
        days: 7,
        orders: 2,
        gross: eur(2198),
        estimatedOrders: 0,
        vat: eur(351),
        wholesaleUsd: 9,
        stripeFees: eur(43),
        refunds: eur(1000),
        margin: eur(535 + 495 - 840),
        topDestinations: [
          { destination: 'DE', orders: 1 },
          { destination: 'FR', orders: 1 },
        ],
        byCurrency: [{ currency: 'EUR', orders: 2, gross: eur(2198) }],
      },
      {
        days: 30,
        orders: 3,
        gross: eur(4697),
        estimatedOrders: 0,
        vat: eur(750),
        wholesaleUsd: 19,
        stripeFees: eur(103),
        refunds: eur(1500),
        margin: eur(535 + 495 + 1180 - 840 - 420),
        topDestinations: [
          { destination: 'DE', orders: 2 },
          { destination: 'FR', orders: 1 },
        ],
        byCurrency: [{ currency: 'EUR', orders: 3, gross: eur(4697) }],
      },
    ]);
    expect(answer.ratesDate).toBe('2026-03-27');
    expect(answer.partners).toEqual([
      { id: 'esim-access', name: 'eSIM Access', balanceUsd: 1234.5678, breaker: 'closed', pausedSince: null, budget: null },
      { id: 'esim-go', name: 'eSIM Go', balanceUsd: 50, breaker: 'closed', pausedSince: null, budget: null },
    ]);
    expect(answer.lowBalanceUsd).toBe(LOW_BALANCE_USD);
    expect(answer.salesPause).toBeNull();
    // The audit, live: a paid order with neither its eSIM nor a refund is named.
    expect(answer.audit).toContainEqual({ orderId: today, finding: expect.stringContaining('paid_without_esim_or_refund') });
  });

  it('adds every currency up in EUR: what Stripe settled where it told us, else at the applied rate; each currency in its own on a line', async () => {
    const data = paidOrders(db);
    /** An order paid in `currency`, with Stripe's fee and what it settled in EUR when given. */
    const paidIn = async (currency: string, amountMinor: number, settled: { amountMinor: number; feeMinor: number } | null) => {
      const id = await data.order({ createdAt: NOW, paidAt: NOW, amountMinor, wholesaleUsdE4: 50_000 });
      await db.query('UPDATE orders SET currency = $2 WHERE id = $1', [id, currency]);
      await db.query(
        `UPDATE payments SET currency = $2, settled_amount_minor = $3, settled_currency = $4, stripe_fee_minor = $5, stripe_fee_currency = $4
         WHERE order_id = $1`,
        [id, currency, settled?.amountMinor ?? null, settled ? 'EUR' : null, settled?.feeMinor ?? null],
      );
      return id;
    };
    await data.order({ createdAt: NOW, paidAt: NOW, amountMinor: 1199, wholesaleUsdE4: 50_000, stripeFeeMinor: 43 });
    // USD 14.49, of which Stripe settled €12.30 and kept €0.90.
    const usd = await paidIn('USD', 1449, { amountMinor: 1230, feeMinor: 90 });
    // ¥2,490 not yet read at Stripe: at the applied 181.20 a euro, €13.74 (1374.17 cents), an estimate.
    await paidIn('JPY', 2490, null);
    // USD 5.00 refunded: at the rate Stripe settled the order at, 1230 / 1449, €4.24.
    await db.query(
      `INSERT INTO refunds (id, order_id, requested_by, reason, amount_minor, currency, status, stripe_refund_id, idempotency_key, created_at)
       VALUES (gen_random_uuid(), $1, 'buyer', 'requested', 500, 'USD', 'succeeded', 're_usd', 'key-usd', $2)`,
      [usd, NOW],
    );

    const [today] = (
      await dashboard(
        db,
        partnerWith(async () => 0),
        RATES,
        NOW,
      )
    ).periods;
    const eur = (amountMinor: number) => ({ amountMinor, currency: 'EUR' });
    const refundEur = Math.round((500 * 1230) / 1449);
    const vat = (gross: number) => Math.round(gross - gross / 1.19);
    // Each order's margin in EUR: gross less VAT, less 5 USD of wholesale (429.99 cents), less its fee.
    const margins = [1199 - vat(1199) - 429.99 - 43, 1230 - vat(1230) - 429.99 - 90, 1374 - vat(1374) - 429.99].map(Math.round);
    expect(today).toMatchObject({
      orders: 3,
      gross: eur(1199 + 1230 + 1374),
      estimatedOrders: 1,
      vat: eur(vat(1199) + vat(1230) + vat(1374)),
      wholesaleUsd: 15,
      stripeFees: eur(43 + 90),
      refunds: eur(refundEur),
      margin: eur(margins[0]! + margins[1]! + margins[2]! - (refundEur - vat(refundEur))),
      byCurrency: [
        { currency: 'EUR', orders: 1, gross: eur(1199) },
        { currency: 'JPY', orders: 1, gross: { amountMinor: 2490, currency: 'JPY' } },
        { currency: 'USD', orders: 1, gross: { amountMinor: 1449, currency: 'USD' } },
      ],
    });
  });

  it('says null for Stripe fees none reported and for a balance the partner would not give, and shows an open pause', async () => {
    const data = paidOrders(db);
    await data.order({ createdAt: NOW, paidAt: NOW, amountMinor: 999 });
    const [action] = await db.query<{ id: number }>(
      `INSERT INTO operator_actions (idempotency_key, operator_uid, action, reason) VALUES ('k1', 'op', 'sales_pause', 'stock check') RETURNING id`,
    );
    await pauseSalesByOperator(db, 'stock check', Number(action!.id));

    const answer = await dashboard(
      db,
      partnerWith(() => Promise.reject(new Error('partner down'))),
      RATES,
      NOW,
    );
    expect(answer.periods.map((p) => [p.orders, p.stripeFees])).toEqual([
      [1, null],
      [1, null],
      [1, null],
    ]);
    expect(answer.partners.map((p) => p.balanceUsd)).toEqual([null, 50]);
    expect(answer.salesPause).toEqual({ reason: 'stock check', since: expect.any(String) });
  });

  it('shows a partner paused for want of balance, and the shop paused only once every partner is', async () => {
    const read = () =>
      dashboard(
        db,
        partnerWith(async () => 0),
        RATES,
        NOW,
      );
    await pauseSales(db, 'esim-go', 10_000);
    const one = await read();
    expect(one.partners.map((p) => [p.id, p.pausedSince])).toEqual([
      ['esim-access', null],
      ['esim-go', expect.any(String)],
    ]);
    expect(one.salesPause).toBeNull();
    await pauseSales(db, 'esim-access', 10_000);
    expect((await read()).salesPause).toEqual({ reason: 'partner_out_of_balance', since: expect.any(String) });
  });
});

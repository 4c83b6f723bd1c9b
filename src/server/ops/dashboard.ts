import { LOW_BALANCE_USD } from '../../config/constants.ts';
import { PRICING } from '../../config/pricing.ts';
import type { OpsDashboard, OpsPeriod } from '../../contract/ops-api.ts';
import { includedVatMinor } from '../../pricing/pricing.ts';
import type { Queryable } from '../db/db.ts';
import { auditOrders } from '../orders/audit.ts';
import { supportCounts } from '../support/store.ts';
import { openSalesPause } from '../orders/sales-pause.ts';
import type { EsimPartner } from '../partner/partner.ts';
import { marginMinor } from './order-detail.ts';

/** The dashboard's periods, in calendar days in Berlin (where the provider works): today, the last 7, the last 30. */
const PERIOD_DAYS = [1, 7, 30] as const;
const TIME_ZONE = 'Europe/Berlin';
const TOP_DESTINATIONS = 5;

interface PaidOrderRow {
  amount_minor: number;
  wholesale_usd_e4: number;
  destination: string;
  paid_at: Date;
  /** Stripe's fees of its paid payments in the order's currency; null when Stripe reported none. */
  fee_minor: number | null;
}

/**
 * The business at a glance (issue 30 item 8): for today, 7 and 30 days, the orders paid in the
 * period and what they brought, the refunds that succeeded in it, the partner's balance, the sales
 * pause and the order audit's findings, all read now.
 */
export async function dashboard(db: Queryable, partner: EsimPartner, now: Date = new Date()): Promise<OpsDashboard> {
  const starts = PERIOD_DAYS.map((days) => berlinMidnight(now, days - 1));
  const earliest = starts[starts.length - 1]!;
  // Only the shop's currency: amounts in another could not be added to it (none is sold today).
  const currency = PRICING.currency;
  // Sequential: on one connection (PGlite, a transaction) queries cannot overlap anyway.
  const orders = await db.query<PaidOrderRow>(
    `SELECT o.amount_minor, o.wholesale_usd_e4, o.destination, p.paid_at, p.fee_minor
     FROM orders o
     JOIN (SELECT order_id, min(created_at) AS paid_at,
             sum(stripe_fee_minor) FILTER (WHERE stripe_fee_currency = $2)::integer AS fee_minor
           FROM payments WHERE status = 'paid' GROUP BY order_id) p ON p.order_id = o.id
     WHERE p.paid_at >= $1 AND p.paid_at <= $3 AND o.currency = $2`,
    [earliest, currency, now],
  );
  const refunds = await db.query<{ amount_minor: number; created_at: Date }>(
    `SELECT amount_minor, created_at FROM refunds WHERE status = 'succeeded' AND currency = $2 AND created_at >= $1 AND created_at <= $3`,
    [earliest, currency, now],
  );
  const pause = await openSalesPause(db);
  const support = await supportCounts(db, now);
  const findings = await auditOrders(db, now);
  const balance = await partner.balance({ priority: 'operator' }).catch((error: unknown) => {
    console.error('dashboard: the partner balance could not be read', error instanceof Error ? error.message : error);
    return null;
  });
  return {
    periods: PERIOD_DAYS.map((days, i) =>
      period(
        days,
        orders.filter((o) => o.paid_at >= starts[i]!),
        refunds.filter((r) => r.created_at >= starts[i]!).map((r) => r.amount_minor),
        currency,
      ),
    ),
    balanceUsd: balance === null ? null : balance / 10_000,
    lowBalanceUsd: LOW_BALANCE_USD,
    salesPause: pause ? { reason: pause.reason, since: pause.since.toISOString() } : null,
    audit: findings.map((f) => ({
      orderId: f.orderId,
      finding: [f.invariant, f.orderNumber, f.detail].filter(Boolean).join(': '),
    })),
    support,
  };
}

/** One period's figures: the margin is each order's (order-detail.ts), less the period's refunds net of VAT. */
function period(days: number, orders: readonly PaidOrderRow[], refunds: readonly number[], currency: string): OpsPeriod {
  const money = (amountMinor: number) => ({ amountMinor, currency });
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  const fees = orders.flatMap((o) => (o.fee_minor === null ? [] : [o.fee_minor]));
  const refunded = sum(refunds);
  const destinations = new Map<string, number>();
  for (const o of orders) destinations.set(o.destination, (destinations.get(o.destination) ?? 0) + 1);
  return {
    days,
    orders: orders.length,
    gross: money(sum(orders.map((o) => o.amount_minor))),
    vat: money(sum(orders.map((o) => includedVatMinor(o.amount_minor)))),
    wholesaleUsd: sum(orders.map((o) => o.wholesale_usd_e4)) / 10_000,
    stripeFees: fees.length > 0 ? money(sum(fees)) : null,
    refunds: money(refunded),
    margin: money(sum(orders.map((o) => marginMinor(o, 0, o.fee_minor))) - sum(refunds.map((r) => r - includedVatMinor(r)))),
    topDestinations: [...destinations]
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .slice(0, TOP_DESTINATIONS)
      .map(([destination, count]) => ({ destination, orders: count })),
  };
}

/** 00:00 in Berlin, `daysBack` calendar days before the Berlin date of `now` (summer time included). */
export function berlinMidnight(now: Date, daysBack = 0): Date {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(now)
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<'year' | 'month' | 'day', number>;
  const wallClock = Date.UTC(parts.year, parts.month - 1, parts.day - daysBack);
  // Berlin's offset at that moment (it changes at 02:00 or 03:00, never near midnight).
  const offset = (at: number) => {
    const p = Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', {
        timeZone: TIME_ZONE,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
        .formatToParts(at)
        .map((part) => [part.type, Number(part.value)]),
    ) as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - at;
  };
  return new Date(wallClock - offset(wallClock - offset(wallClock)));
}

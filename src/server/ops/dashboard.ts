import { LOW_BALANCE_USD } from '../../config/constants.ts';
import { BASE_CURRENCY } from '../../config/currencies.ts';
import type { OpsDashboard, OpsPeriod } from '../../contract/ops-api.ts';
import type { ExchangeRates, PerEuro } from '../../pricing/exchange-rates.ts';
import { includedVatMinor } from '../../pricing/pricing.ts';
import type { Queryable } from '../db/db.types.ts';
import { auditOrders } from '../orders/audit.ts';
import { supportCounts } from '../support/store.ts';
import { openSalesPauses } from '../orders/sales-pause.ts';
import type { Partners } from '../partner/registry.types.ts';
import { convert } from './money.ts';
import { SOURCING_JOIN } from '../orders/sourcing.ts';
import { CHARGE_TOTAL_SQL, chargeOf, marginMinor, stripeFiguresOf, type OrderMoneyRow, type StripeFigures } from './order-detail.ts';

/** The dashboard's periods, in calendar days in Berlin (where the provider works): today, the last 7, the last 30. */
const PERIOD_DAYS = [1, 7, 30] as const;
const TIME_ZONE = 'Europe/Berlin';
const TOP_DESTINATIONS = 5;

interface PaidOrderRow extends OrderMoneyRow {
  destination: string;
  paid_at: Date;
  /** Its first paid payment's: the order's share and the whole charge's, Stripe's fee and what it settled (null: not reported). */
  payment_minor: number;
  charge_total_minor: number | null;
  stripe_fee_minor: number | null;
  stripe_fee_currency: string | null;
  settled_amount_minor: number | null;
  settled_currency: string | null;
}

/** A paid order's figures in EUR, and in its own currency for the breakdown. */
interface OrderFigures {
  row: PaidOrderRow;
  stripe: StripeFigures;
  /** What it brought in EUR: Stripe's settled amount where known, else converted at the applied rate (`estimated`). */
  grossEur: number;
  estimated: boolean;
  feeEur: number | null;
  marginEur: number;
}

interface RefundRow {
  amount_minor: number;
  currency: string;
  created_at: Date;
  /** Its order's charge, what converts it at Stripe's rate. */
  order_minor: number;
  charge_total_minor: number | null;
  settled_amount_minor: number | null;
  settled_currency: string | null;
}

/**
 * The business at a glance (issue 30 item 8): for today, 7 and 30 days, the orders paid in the
 * period and what they brought, the refunds that succeeded in it, the partner's balance, the sales
 * pause and the order audit's findings, all read now. Every currency is added up in EUR, the
 * balance's (issue 34): see OrderFigures and refundEur for the rate each amount is converted at.
 */
export async function dashboard(
  db: Queryable,
  partners: Partners,
  exchangeRates: Pick<ExchangeRates, 'date' | 'applied'>,
  now: Date = new Date(),
): Promise<OpsDashboard> {
  const starts = PERIOD_DAYS.map((days) => berlinMidnight(now, days - 1));
  const earliest = starts[starts.length - 1]!;
  const rates = exchangeRates.applied;
  // Sequential: on one connection (PGlite, a transaction) queries cannot overlap anyway. An order's
  // first paid payment: an order is paid once (a second payment of it is refunded, not revenue).
  const orders = await db.query<PaidOrderRow>(
    `SELECT o.amount_minor, o.currency, os.wholesale_usd_e4, o.destination, p.created_at AS paid_at, p.amount_minor AS payment_minor,
       p.charge_total_minor, p.stripe_fee_minor, p.stripe_fee_currency, p.settled_amount_minor, p.settled_currency
     FROM orders o ${SOURCING_JOIN}
     JOIN (SELECT DISTINCT ON (p.order_id) p.*, ${CHARGE_TOTAL_SQL} AS charge_total_minor
           FROM payments p WHERE p.status = 'paid' ORDER BY p.order_id, p.created_at, p.id) p ON p.order_id = o.id
     WHERE p.created_at >= $1 AND p.created_at <= $2`,
    [earliest, now],
  );
  const refunds = await db.query<RefundRow>(
    `SELECT r.amount_minor, r.currency, r.created_at, o.amount_minor AS order_minor,
       p.charge_total_minor, p.settled_amount_minor, p.settled_currency
     FROM refunds r
     JOIN orders o ON o.id = r.order_id
     LEFT JOIN (SELECT DISTINCT ON (p.order_id) p.order_id, p.amount_minor, p.settled_amount_minor, p.settled_currency,
                  ${CHARGE_TOTAL_SQL} AS charge_total_minor
                FROM payments p WHERE p.status = 'paid' ORDER BY p.order_id, p.created_at, p.id) p ON p.order_id = r.order_id
     WHERE r.status = 'succeeded' AND r.created_at >= $1 AND r.created_at <= $2`,
    [earliest, now],
  );
  const figures = orders.map((row) => orderFigures(row, rates));
  const refundsEur = refunds.map((r) => ({ at: r.created_at, eur: refundEur(r, rates) }));
  const pauses = await openSalesPauses(db);
  const support = await supportCounts(db, now);
  const findings = await auditOrders(db, now);
  const partnerHealth = [];
  for (const id of partners.ids) {
    const balance = await partners
      .of(id)
      .balance({ priority: 'operator' })
      .catch((error: unknown) => {
        console.error(`dashboard: the balance at ${id} could not be read`, error instanceof Error ? error.message : error);
        return null;
      });
    partnerHealth.push({
      id,
      name: partners.nameOf(id),
      balanceUsd: balance === null ? null : balance / 10_000,
      breaker: partners.breaker(id).state,
      pausedSince: pauses.find((p) => p.partner === id)?.since.toISOString() ?? null,
      budget: await partners.budgetUse(id),
    });
  }
  // The shop is paused by an operator, or when no partner of it takes orders.
  const pause = pauses.find((p) => p.partner === null) ?? (partnerHealth.every((p) => p.pausedSince) ? pauses[0] : undefined);
  return {
    periods: PERIOD_DAYS.map((days, i) =>
      period(
        days,
        figures.filter((o) => o.row.paid_at >= starts[i]!),
        refundsEur.filter((r) => r.at >= starts[i]!).map((r) => r.eur),
      ),
    ),
    ratesDate: exchangeRates.date,
    partners: partnerHealth,
    lowBalanceUsd: LOW_BALANCE_USD,
    salesPause: pause ? { reason: pause.reason, since: pause.since.toISOString() } : null,
    audit: findings.map((f) => ({
      orderId: f.orderId,
      finding: [f.invariant, f.orderNumber, f.detail].filter(Boolean).join(': '),
    })),
    support,
  };
}

/**
 * A paid order in EUR. Its gross is what Stripe settled of it into the balance where Stripe told us
 * (the charge's balance transaction, in EUR), else its amount converted at the catalogue's applied
 * rate of today: an estimate until the charge is read (the reconcile job reads it). Its fee and
 * margin are converted alike (marginMinor in EUR, the wholesale via pricingFor('EUR')).
 */
function orderFigures(row: PaidOrderRow, rates: PerEuro): OrderFigures {
  const stripe = stripeFiguresOf({ ...row, amount_minor: row.payment_minor });
  const charge = chargeOf(row, stripe);
  const gross = convert({ amountMinor: row.amount_minor, currency: row.currency }, BASE_CURRENCY, charge, rates);
  return {
    row,
    stripe,
    grossEur: Math.round(gross.amountMinor),
    estimated: gross.at === 'applied',
    feeEur: stripe.fee ? Math.round(convert(stripe.fee, BASE_CURRENCY, charge, rates).amountMinor) : null,
    marginEur: marginMinor(row, 0, stripe, rates, BASE_CURRENCY),
  };
}

/**
 * A refund in EUR: at the rate Stripe settled its order's charge at where Stripe told us (the
 * refund's own conversion, on its day, is not read), else at the catalogue's applied rate of today.
 */
function refundEur(refund: RefundRow, rates: PerEuro): number {
  const settledShare =
    refund.settled_amount_minor === null || refund.settled_currency === null
      ? null
      : stripeFiguresOf({
          amount_minor: refund.order_minor,
          charge_total_minor: refund.charge_total_minor,
          stripe_fee_minor: null,
          stripe_fee_currency: null,
          settled_amount_minor: refund.settled_amount_minor,
          settled_currency: refund.settled_currency,
        }).settled;
  const charge = { charged: { amountMinor: refund.order_minor, currency: refund.currency }, settled: settledShare };
  return Math.round(convert({ amountMinor: refund.amount_minor, currency: refund.currency }, BASE_CURRENCY, charge, rates).amountMinor);
}

/**
 * One period's figures in EUR: the margin is each order's (order-detail.ts), less the period's
 * refunds net of VAT; and the orders by the currency they were paid in, each in its own.
 */
function period(days: number, orders: readonly OrderFigures[], refunds: readonly number[]): OpsPeriod {
  const eur = (amountMinor: number) => ({ amountMinor, currency: BASE_CURRENCY });
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  const fees = orders.flatMap((o) => (o.feeEur === null ? [] : [o.feeEur]));
  const destinations = new Map<string, number>();
  const currencies = new Map<string, { orders: number; grossMinor: number }>();
  for (const { row } of orders) {
    destinations.set(row.destination, (destinations.get(row.destination) ?? 0) + 1);
    const line = currencies.get(row.currency) ?? { orders: 0, grossMinor: 0 };
    currencies.set(row.currency, { orders: line.orders + 1, grossMinor: line.grossMinor + row.amount_minor });
  }
  return {
    days,
    orders: orders.length,
    gross: eur(sum(orders.map((o) => o.grossEur))),
    estimatedOrders: orders.filter((o) => o.estimated).length,
    vat: eur(sum(orders.map((o) => includedVatMinor(o.grossEur)))),
    wholesaleUsd: sum(orders.map((o) => o.row.wholesale_usd_e4)) / 10_000,
    stripeFees: fees.length > 0 ? eur(sum(fees)) : null,
    refunds: eur(sum(refunds)),
    margin: eur(sum(orders.map((o) => o.marginEur)) - sum(refunds.map((r) => r - includedVatMinor(r)))),
    topDestinations: [...destinations]
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .slice(0, TOP_DESTINATIONS)
      .map(([destination, count]) => ({ destination, orders: count })),
    byCurrency: [...currencies]
      .sort(([a, x], [b, y]) => Number(b === BASE_CURRENCY) - Number(a === BASE_CURRENCY) || y.orders - x.orders || a.localeCompare(b))
      .map(([currency, line]) => ({ currency, orders: line.orders, gross: { amountMinor: line.grossMinor, currency } })),
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

import { stringify } from 'csv-stringify/sync';
import type { OrderKind } from '../../contract/order-kinds.ts';
import { includedVatMinor } from '../../pricing/pricing.ts';
import type { Queryable } from '../db/db.types.ts';
import { orderNumber } from '../orders/store.ts';
import { berlinMidnight } from './dashboard.ts';
import { shareOf } from './money.ts';
import { SOURCING_JOIN } from '../orders/sourcing.ts';
import { CHARGE_TOTAL_SQL } from './order-detail.ts';

interface CsvRow {
  number: number;
  created_at: Date;
  paid_at: Date;
  email: string | null;
  buyer_country: string | null;
  currency: string;
  amount_minor: number;
  wholesale_usd_e4: number;
  refunded_minor: number;
  /** The order's payment, and the whole charge it is part of (a cart's several orders share one). */
  payment_minor: number;
  charge_total_minor: number | null;
  fee_minor: number | null;
  fee_currency: string | null;
  settled_minor: number | null;
  settled_currency: string | null;
  kind: OrderKind;
}

const COLUMNS = [
  'order',
  'created_at',
  'paid_at',
  'buyer_email',
  'buyer_country',
  'currency',
  'amount_minor',
  'vat_minor',
  'wholesale_usd',
  'refunded_minor',
  'stripe_fee_minor',
  'stripe_fee_currency',
  'settled_minor',
  'settled_currency',
  // What was bought: a new eSIM, a top-up the buyer bought, or an automatic top-up on the saved card (issue 49).
  'kind',
];

/** A cell a spreadsheet would read as a formula (OWASP CSV injection): quoted as well as prefixed with ' by escape_formulas. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * The accountant's export (issue 30 item 8): one row per paid order, in the currency it was paid in
 * with what Stripe settled of it in euros and its fee (issue 34), paid from `from` to `to`
 * (calendar days in Berlin, both included; either may be left open), oldest payment first. Made
 * for spreadsheet programs: UTF-8 with a BOM (Excel reads it as UTF-8 only then), CRLF and RFC
 * 4180 quoting, and no cell that starts a formula: a buyer's e-mail such as `=HYPERLINK(…)` is
 * written as text ('=HYPERLINK…).
 */
export async function ordersCsv(db: Queryable, range: { from?: string; to?: string }): Promise<string> {
  const from = range.from ? berlinMidnight(new Date(`${range.from}T12:00:00Z`)) : null;
  // The day after `to`, at midnight: `to` itself is included.
  const until = range.to ? berlinMidnight(new Date(`${range.to}T12:00:00Z`), -1) : null;
  const rows = await db.query<CsvRow>(
    `SELECT o.number, o.created_at, p.paid_at, o.email, p.buyer_country, o.currency, o.amount_minor, os.wholesale_usd_e4,
       coalesce(r.refunded_minor, 0) AS refunded_minor, p.amount_minor AS payment_minor, p.charge_total_minor,
       p.stripe_fee_minor AS fee_minor, p.stripe_fee_currency AS fee_currency,
       p.settled_amount_minor AS settled_minor, p.settled_currency, o.kind
     FROM orders o ${SOURCING_JOIN}
     JOIN (SELECT DISTINCT ON (p.order_id) p.*, p.created_at AS paid_at, ${CHARGE_TOTAL_SQL} AS charge_total_minor
           FROM payments p WHERE p.status = 'paid' ORDER BY p.order_id, p.created_at, p.id) p ON p.order_id = o.id
     LEFT JOIN (SELECT order_id, sum(amount_minor)::integer AS refunded_minor
                FROM refunds WHERE status = 'succeeded' GROUP BY order_id) r ON r.order_id = o.id
     WHERE ($1::timestamptz IS NULL OR p.paid_at >= $1) AND ($2::timestamptz IS NULL OR p.paid_at < $2)
     ORDER BY p.paid_at, o.number`,
    [from, until],
  );
  return stringify(
    rows.map((row) => [
      orderNumber(row),
      row.created_at.toISOString(),
      row.paid_at.toISOString(),
      row.email,
      row.buyer_country,
      row.currency,
      row.amount_minor,
      includedVatMinor(row.amount_minor),
      (row.wholesale_usd_e4 / 10_000).toFixed(4),
      row.refunded_minor,
      // A cart's charge is booked whole on each of its orders: each row carries its own share.
      row.fee_minor === null ? null : shareOf(row.fee_minor, row.payment_minor, row.charge_total_minor ?? row.payment_minor),
      row.fee_currency,
      row.settled_minor === null ? null : shareOf(row.settled_minor, row.payment_minor, row.charge_total_minor ?? row.payment_minor),
      row.settled_currency,
      row.kind,
    ]),
    {
      header: true,
      columns: COLUMNS,
      bom: true,
      record_delimiter: 'windows',
      // A lone \n or \r inside a cell is quoted too, not only CRLF.
      quote_record_delimiter: true,
      escape_formulas: true,
      quoted_match: FORMULA_START,
    },
  );
}

import { stringify } from 'csv-stringify/sync';
import { includedVatMinor } from '../../pricing/pricing.ts';
import type { Queryable } from '../db/db.ts';
import { orderNumber } from '../orders/store.ts';
import { berlinMidnight } from './dashboard.ts';

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
  fee_minor: number | null;
  fee_currency: string | null;
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
];

/** A cell a spreadsheet would read as a formula (OWASP CSV injection): quoted as well as prefixed with ' by escape_formulas. */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * The accountant's export (issue 30 item 8): one row per paid order, paid from `from` to `to`
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
    `SELECT o.number, o.created_at, p.paid_at, o.email, p.buyer_country, o.currency, o.amount_minor, o.wholesale_usd_e4,
       coalesce(r.refunded_minor, 0) AS refunded_minor, p.fee_minor, p.fee_currency
     FROM orders o
     JOIN (SELECT order_id, min(created_at) AS paid_at, max(buyer_country) AS buyer_country,
             sum(stripe_fee_minor)::integer AS fee_minor, max(stripe_fee_currency) AS fee_currency
           FROM payments WHERE status = 'paid' GROUP BY order_id) p ON p.order_id = o.id
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
      row.fee_minor,
      row.fee_currency,
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

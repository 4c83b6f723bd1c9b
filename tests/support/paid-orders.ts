// Orders, payments and refunds written straight into the tables (migrations 0001, 0016, 0017), for
// the back office's business figures and the accountant's export.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../src/server/db/db.types.ts';

export interface PaidOrderFields {
  email?: string | null;
  destination?: string;
  amountMinor?: number;
  wholesaleUsdE4?: number;
  createdAt: Date;
  /** The paid payment's time; none: never paid. */
  paidAt?: Date;
  paymentStatus?: 'paid' | 'failed';
  buyerCountry?: string | null;
  /** In EUR unless said; the fee and the settled amount are in EUR, Stripe's balance. */
  stripeFeeMinor?: number | null;
  currency?: string;
  settledMinor?: number | null;
  /** Orders of one cart share their Checkout Session (one charge; each payment row its order's share). */
  checkoutSessionId?: string;
}

export function paidOrders(db: Queryable) {
  return {
    /** An order (paid when `paidAt` is given); answers its id. */
    async order(fields: PaidOrderFields): Promise<string> {
      const {
        email = 'buyer@example.com',
        destination = 'DE',
        amountMinor = 1000,
        wholesaleUsdE4 = 50_000,
        createdAt,
        currency = 'EUR',
      } = fields;
      const id = randomUUID();
      await db.query(
        `WITH created AS (
           INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, created_at)
           VALUES ($1, $2, $3, $4, 'de-1gb-7d', $5, '{}'::jsonb, $7, $9, 'en', $8) RETURNING id
         )
         INSERT INTO order_sourcing (order_id, partner, partner_code, wholesale_usd_e4) SELECT id, 'esim-access', 'P1', $6 FROM created`,
        [
          id,
          `uid-${id}`,
          email,
          fields.paidAt ? 'delivered' : 'pending_payment',
          destination,
          wholesaleUsdE4,
          amountMinor,
          createdAt,
          currency,
        ],
      );
      if (fields.paidAt) {
        const fee = fields.stripeFeeMinor ?? null;
        await db.query(
          `INSERT INTO payments (order_id, provider, checkout_session_id, status, amount_minor, currency, created_at, buyer_country,
             stripe_fee_minor, stripe_fee_currency, settled_amount_minor, settled_currency)
           VALUES ($1, 'stripe', $2, $3, $4, $9, $5, $6, $7, $8, $10, $11)`,
          [
            id,
            fields.checkoutSessionId ?? `cs_${id}`,
            fields.paymentStatus ?? 'paid',
            amountMinor,
            fields.paidAt,
            fields.buyerCountry ?? null,
            fee,
            fee === null ? null : 'EUR',
            currency,
            fields.settledMinor ?? null,
            fields.settledMinor == null ? null : 'EUR',
          ],
        );
      }
      return id;
    },
    async refund(orderId: string, amountMinor: number, createdAt: Date, status: 'succeeded' | 'pending' = 'succeeded'): Promise<void> {
      const id = randomUUID();
      await db.query(
        `INSERT INTO refunds (id, order_id, requested_by, reason, amount_minor, currency, status, stripe_refund_id, idempotency_key, created_at)
         VALUES ($1, $2, 'buyer', 'requested', $3, 'EUR', $4, $5, $6, $7)`,
        [id, orderId, amountMinor, status, `re_${id}`, `key-${id}`, createdAt],
      );
    },
  };
}

-- Money safe under faults and abuse (issue 20, DESIGN 7).

-- A worker's claim on an order is fenced: each claim takes the next lease number, and every write
-- of that run checks it, so a second instance that took the order after a lapse never acts twice.
ALTER TABLE orders ADD COLUMN lease bigint NOT NULL DEFAULT 0;

-- What was refunded, so a refund larger than the payment shows in the audit.
ALTER TABLE orders ADD COLUMN refund_amount_minor integer;

-- A refund's reasons: also a payment that does not match its order, a partner price above the
-- price sold, and an order whose buyer deleted the account before it was delivered.
ALTER TABLE orders DROP CONSTRAINT orders_refund_reason_check;
ALTER TABLE orders ADD CONSTRAINT orders_refund_reason_check
  CHECK (refund_reason IN ('not_delivered', 'requested', 'payment_mismatch', 'account_deleted', 'out_of_balance'));

-- Every write to the partner that costs or returns money, recorded before it is sent and settled
-- once its answer (or a read of the partner's state after an ambiguous answer) says what happened.
-- A write left 'sent' is never repeated blindly: the partner is read first (DESIGN 7).
CREATE TABLE partner_writes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  call text NOT NULL CHECK (call IN ('esim/order', 'esim/topup', 'esim/cancel')),
  esim_tran_no text,
  -- For a top-up: the eSIM's totals before it, to tell from a read whether a lost answer was applied.
  before_total_bytes bigint,
  outcome text NOT NULL DEFAULT 'sent' CHECK (outcome IN ('sent', 'applied', 'refused')),
  detail text,
  sent_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);
CREATE INDEX partner_writes_by_order ON partner_writes (order_id, id);

-- Every e-mail sent for an order: one of a kind per order (the audit checks it).
CREATE TABLE order_emails (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  kind text NOT NULL CHECK (kind IN ('order', 'top_up', 'refund')),
  sent_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_emails_by_order ON order_emails (order_id);

-- Payments that reached us for an order they do not match (amount, currency or session): refunded
-- at once and kept here for whoever runs the shop.
CREATE TABLE payment_mismatches (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id uuid REFERENCES orders (id),
  checkout_session_id text NOT NULL UNIQUE,
  payment_intent_id text,
  amount_minor integer,
  currency text,
  reason text NOT NULL,
  refund_id text,
  -- Failed tries to give it back (each try asks Stripe under a new idempotency key, after reading it).
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  refunded_at timestamptz
);

-- Per-user limits of the routes that cost a Checkout Session or partner calls (src/server/limits.ts):
-- rate-limiter-flexible's RateLimiterPostgres table, one row per user and window ('refunds-minute:<uid>'),
-- shared by every API instance. `expire` is in ms since the epoch, as the library writes it.
CREATE TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- Payment pages to close: the Checkout Session of an order closed while open (replaced by another
-- order of its buyer, timed out, or cancelled with the account) is expired at Stripe, so it takes no
-- payment. Queued in the transaction that closes the order, removed once Stripe says the session is
-- no longer open; the reconcile job tries the rest again (src/server/payments/checkout-expiry.ts).
CREATE TABLE checkout_expiries (
  checkout_session_id text PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_expiries_due ON checkout_expiries (next_attempt_at);

-- Selling stops while the partner's prepaid balance cannot pay for what buyers order (it refuses
-- with 200007): one open pause at a time, cleared once the balance covers the price that failed.
CREATE TABLE sales_pauses (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reason text NOT NULL,
  needed_usd_e4 integer NOT NULL,
  since timestamptz NOT NULL DEFAULT now(),
  checked_at timestamptz,
  cleared_at timestamptz
);
CREATE UNIQUE INDEX sales_pauses_one_open ON sales_pauses ((true)) WHERE cleared_at IS NULL;

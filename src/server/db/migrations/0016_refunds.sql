-- Refunds as rows of their own (issue 30 item 5): one row per refund asked, by the buyer's button,
-- an operator or the shop itself, made by one command (src/server/refunds/refund-command.ts). An
-- order can have several partial refunds; together they never exceed what was paid (checked by the
-- command inside a transaction that locks the order). The state model is written at
-- src/server/refunds/settle.ts.
CREATE TABLE refunds (
  id uuid PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  requested_by text NOT NULL CHECK (requested_by IN ('buyer', 'operator', 'system')),
  -- The operator who asked (a Firebase uid): required for an operator's refund, never set otherwise.
  operator_uid text,
  CONSTRAINT refunds_asked_by_someone CHECK ((requested_by = 'operator') = (operator_uid IS NOT NULL)),
  reason text NOT NULL
    CHECK (reason IN ('not_delivered', 'requested', 'payment_mismatch', 'account_deleted', 'out_of_balance', 'fraud', 'operator')),
  note text,
  amount_minor integer NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  -- requested: written, Stripe not asked yet or its answer unknown (Stripe is read before asking);
  -- pending: Stripe has it and has not settled it; succeeded: the money is back; failed: Stripe gave
  -- up (asked again later, under a new key); cancelled: never asked and never will be (the eSIM
  -- was installed before its refund could be made): it counts for nothing.
  status text NOT NULL DEFAULT 'requested' CHECK (status IN ('requested', 'pending', 'succeeded', 'failed', 'cancelled')),
  -- The latest Stripe refund made for this row (a failed one is replaced when the row is asked again).
  stripe_refund_id text UNIQUE,
  -- How often Stripe was asked for it (each ask has its own Idempotency-Key, derived from the row id).
  asks integer NOT NULL DEFAULT 0,
  -- How many of its Stripe refunds failed (each failure waits longer before the next ask).
  failures integer NOT NULL DEFAULT 0,
  -- The caller's key: the same key for the same order finds this row (a double click refunds once).
  idempotency_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- When its status last changed (the audit: pending too long, failed and not asked again).
  status_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (order_id, idempotency_key)
);
CREATE INDEX refunds_by_order ON refunds (order_id, created_at);
CREATE INDEX refunds_open ON refunds (order_id) WHERE status IN ('requested', 'pending', 'failed');

-- The orders' one refund each becomes its row. Before this, every order refund was the whole
-- payment, asked by the buyer ('requested') or by the shop (every other reason).
INSERT INTO refunds (id, order_id, requested_by, reason, amount_minor, currency, status, stripe_refund_id, asks, failures,
  idempotency_key, created_at, status_at)
SELECT gen_random_uuid(), o.id, CASE WHEN o.refund_reason = 'requested' THEN 'buyer' ELSE 'system' END,
  coalesce(o.refund_reason, 'not_delivered'), coalesce(o.refund_amount_minor, o.amount_minor), o.currency,
  coalesce(o.refund_status, 'pending'), o.refund_id, 1, o.refund_failures, 'migrated:' || o.id,
  coalesce(o.refund_status_at, o.updated_at), coalesce(o.refund_status_at, o.updated_at)
FROM orders o WHERE o.refund_id IS NOT NULL;

-- One source of truth: the refunds now live in their rows. refund_reason stays on the order: why
-- the order itself is being refunded as a whole (the refund e-mail's wording), set as it enters
-- fulfilment_failed or refund_requested, before any refund row exists.
DROP INDEX IF EXISTS orders_by_refund;
ALTER TABLE orders DROP COLUMN refund_id;
ALTER TABLE orders DROP COLUMN refund_status;
ALTER TABLE orders DROP COLUMN refund_status_at;
ALTER TABLE orders DROP COLUMN refund_failures;
ALTER TABLE orders DROP COLUMN refund_amount_minor;
ALTER TABLE orders DROP CONSTRAINT orders_refund_reason_check;
ALTER TABLE orders ADD CONSTRAINT orders_refund_reason_check
  CHECK (refund_reason IN ('not_delivered', 'requested', 'payment_mismatch', 'account_deleted', 'out_of_balance', 'fraud', 'operator'));

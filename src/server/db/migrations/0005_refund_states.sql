-- A refund is the buyer's only once Stripe says it succeeded (issue 24 item 6). Stripe's refunds
-- can stay pending and succeed or fail later, and one reported succeeded can still fail
-- (docs.stripe.com/refunds, failed refunds): the order keeps what Stripe last said of its refund.
-- The state model is written at refund() in src/server/fulfilment/fulfilment.ts.

-- Of the refund named by refund_id: pending (asked, not settled), succeeded (the money is back:
-- only now is the order refunded and the buyer told), failed (Stripe gave up: asked again later).
ALTER TABLE orders ADD COLUMN refund_status text CHECK (refund_status IN ('pending', 'succeeded', 'failed'));
-- When Stripe last said it (the audit: pending too long, failed and not asked again).
ALTER TABLE orders ADD COLUMN refund_status_at timestamptz;
-- How many of the order's refunds failed (each failure waits longer before the next refund).
ALTER TABLE orders ADD COLUMN refund_failures integer NOT NULL DEFAULT 0;

-- Before this, every refund succeeded at once (the shop recorded it only then).
UPDATE orders SET refund_status = 'succeeded', refund_status_at = updated_at WHERE refund_id IS NOT NULL;

-- Stripe's refund events name the refund: the order is found by it.
CREATE INDEX orders_by_refund ON orders (refund_id) WHERE refund_id IS NOT NULL;

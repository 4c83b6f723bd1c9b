-- The order row is the sale (issue 47 item 3): why an order is refunded as a whole (0002, the
-- refund e-mail's wording and the audit's) moves to a row of its own, written only by
-- src/server/refunds/refund-reasons.ts. No row: the order is not being refunded as a whole. Each
-- refund itself has been a row of its own since 0016 (refunds).
CREATE TABLE order_refund_reasons (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  reason text NOT NULL
    CHECK (reason IN ('not_delivered', 'requested', 'payment_mismatch', 'account_deleted', 'out_of_balance', 'fraud', 'operator', 'exchanged')),
  set_at timestamptz NOT NULL DEFAULT now()
);
-- The audit's sales_paused: the orders refunded for the partner's balance.
CREATE INDEX order_refund_reasons_out_of_balance ON order_refund_reasons (order_id) WHERE reason = 'out_of_balance';

INSERT INTO order_refund_reasons (order_id, reason, set_at)
SELECT id, refund_reason, updated_at FROM orders WHERE refund_reason IS NOT NULL;

ALTER TABLE orders DROP COLUMN refund_reason;

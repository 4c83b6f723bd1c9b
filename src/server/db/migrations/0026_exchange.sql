-- An eSIM bought for the wrong destination, exchanged (issue 32 item 5): the new order names the
-- order it exchanges, and once the new eSIM is delivered the old one, still unused, is cancelled at
-- the partner and refunded through the one refund command with its own reason.
ALTER TABLE orders ADD COLUMN exchange_of uuid REFERENCES orders (id);
-- One exchange delivered per eSIM: another paid exchange order of the same eSIM is refused at checkout.
CREATE INDEX orders_by_exchange ON orders (exchange_of) WHERE exchange_of IS NOT NULL;

ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check
  CHECK (reason IN ('not_delivered', 'requested', 'payment_mismatch', 'account_deleted', 'out_of_balance', 'fraud', 'operator', 'exchanged'));
ALTER TABLE orders DROP CONSTRAINT orders_refund_reason_check;
ALTER TABLE orders ADD CONSTRAINT orders_refund_reason_check
  CHECK (refund_reason IN ('not_delivered', 'requested', 'payment_mismatch', 'account_deleted', 'out_of_balance', 'fraud', 'operator', 'exchanged'));

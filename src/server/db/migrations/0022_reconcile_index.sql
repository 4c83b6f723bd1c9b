-- The reconcile job's "due orders" query (fulfilment/queue.ts) asks for refunded orders still owed
-- their e-mail too, and 0002's partial index did not cover them: every tick of every instance then
-- read the whole orders table. This index covers exactly the orders' own part of that query; open
-- refunds come through refunds_open (0016) in the query's second branch.
DROP INDEX orders_to_reconcile;
CREATE INDEX orders_to_reconcile ON orders (next_attempt_at)
  WHERE state IN ('paid', 'provisioning', 'fulfilment_failed', 'refund_requested')
     OR (state = 'delivered' AND email_sent_at IS NULL)
     OR (state = 'refunded' AND refund_reason IS NOT NULL AND email_sent_at IS NULL);

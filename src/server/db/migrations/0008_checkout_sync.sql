-- The reconcile job asks Stripe itself about payment pages whose outcome never reached us (a
-- checkout.session.completed that Stripe gave up delivering): when it last asked, and when Stripe's
-- answer settled the page (paid or expired), after which it is not asked again.
ALTER TABLE orders ADD COLUMN checkout_checked_at timestamptz;
ALTER TABLE orders ADD COLUMN checkout_settled_at timestamptz;
CREATE INDEX orders_checkouts_to_check ON orders (checkout_checked_at NULLS FIRST)
  WHERE checkout_session_id IS NOT NULL AND checkout_settled_at IS NULL AND state IN ('pending_payment', 'expired', 'cancelled');

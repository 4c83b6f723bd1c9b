-- The order row is the sale (issue 47 item 3): an order's Stripe payment page, and the reconcile
-- job's look at it (migration 0008), move to a row of their own, written by src/server/payments
-- (checkout-sync.ts) and by the two that attach a page: orders/store.ts (an order of its own) and
-- carts/store.ts (the orders of a cart share their cart's page). No row: no page yet.
CREATE TABLE order_checkouts (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  checkout_session_id text NOT NULL,
  checkout_url text,
  -- One page for the orders of a cart; an order of its own has a page of its own.
  shared boolean NOT NULL DEFAULT false,
  -- When the page was attached: the reconcile job asks about pages of the last three days only.
  created_at timestamptz NOT NULL DEFAULT now(),
  -- When the reconcile job last asked Stripe about the page, and when Stripe's answer settled it.
  checked_at timestamptz,
  settled_at timestamptz
);
CREATE UNIQUE INDEX order_checkouts_own_session ON order_checkouts (checkout_session_id) WHERE NOT shared;
-- The Stripe webhook finds the orders a page paid for by its session id.
CREATE INDEX order_checkouts_by_session ON order_checkouts (checkout_session_id);
-- The reconcile job's pages not yet settled (checkout-sync.ts).
CREATE INDEX order_checkouts_to_check ON order_checkouts (created_at) WHERE settled_at IS NULL;

INSERT INTO order_checkouts (order_id, checkout_session_id, checkout_url, shared, created_at, checked_at, settled_at)
SELECT id, checkout_session_id, checkout_url, cart_id IS NOT NULL, created_at, checkout_checked_at, checkout_settled_at
FROM orders WHERE checkout_session_id IS NOT NULL;

DROP INDEX orders_checkouts_to_check;
DROP INDEX orders_own_checkout_session;
DROP INDEX orders_by_checkout_session;
ALTER TABLE orders DROP COLUMN checkout_session_id, DROP COLUMN checkout_url, DROP COLUMN checkout_checked_at,
  DROP COLUMN checkout_settled_at;

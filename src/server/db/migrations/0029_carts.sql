-- A cart (issue 33): several eSIMs, of one or more plans, paid once. Each eSIM stays an order of its
-- own (delivered, e-mailed, alerted, refunded on its own, its price on its row), and the cart is
-- what they share: one Stripe Checkout Session with one line item per plan, one payment. A refund
-- of one eSIM refunds that order's amount from the shared payment (Stripe refunds in part).
CREATE TABLE carts (
  id uuid PRIMARY KEY,
  uid text,
  amount_minor integer NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  lang text NOT NULL,
  checkout_session_id text UNIQUE,
  checkout_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX carts_by_owner ON carts (uid, created_at DESC);

ALTER TABLE orders ADD COLUMN cart_id uuid REFERENCES carts (id);
CREATE INDEX orders_by_cart ON orders (cart_id) WHERE cart_id IS NOT NULL;

-- The orders of a cart share its payment page; an order of its own still has a page of its own.
ALTER TABLE orders DROP CONSTRAINT orders_checkout_session_id_key;
CREATE UNIQUE INDEX orders_own_checkout_session ON orders (checkout_session_id) WHERE cart_id IS NULL;
CREATE INDEX orders_by_checkout_session ON orders (checkout_session_id) WHERE checkout_session_id IS NOT NULL;
-- "One open order per buyer and plan" is the double-click guard of a single purchase; a cart may
-- hold the same plan several times (a family of four), and has its own guard (carts/store.ts).
DROP INDEX orders_one_open_per_plan;
CREATE UNIQUE INDEX orders_one_open_per_plan ON orders (uid, plan_id) WHERE state = 'pending_payment' AND cart_id IS NULL;

-- A cart's payment is recorded on each of its orders, with that order's share.
ALTER TABLE payments DROP CONSTRAINT payments_provider_checkout_session_id_status_key;
CREATE UNIQUE INDEX payments_once_per_order ON payments (provider, checkout_session_id, status, order_id);

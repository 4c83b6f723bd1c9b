-- Which partner an order is sourced from (issue 48): the partner, its own code for the package,
-- the wholesale price when the partner was chosen, and the partner's order number once ordered.
-- The order row stays the sale (issue 47); a failover to another partner rewrites this row, and
-- partner_writes (which now names its partner too) keeps what was sent to whom. Written by
-- orders/store.ts (an order opens with its partner), esims/replacement.ts (a replacement at the
-- eSIM's partner) and the fulfilment (the partner's order number). Every order before this one
-- went to eSIM Access.
CREATE TABLE order_sourcing (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  partner text NOT NULL,
  partner_code text NOT NULL,
  wholesale_usd_e4 integer NOT NULL CHECK (wholesale_usd_e4 >= 0),
  partner_order_no text,
  chosen_at timestamptz NOT NULL DEFAULT now()
);
-- The partner's notifications name its order number.
CREATE INDEX order_sourcing_by_partner_order ON order_sourcing (partner_order_no);

INSERT INTO order_sourcing (order_id, partner, partner_code, wholesale_usd_e4, partner_order_no, chosen_at)
SELECT id, 'esim-access', partner_code, wholesale_usd_e4, partner_order_no, created_at FROM orders;

DROP INDEX orders_by_partner_order;
ALTER TABLE orders DROP COLUMN partner_code, DROP COLUMN wholesale_usd_e4, DROP COLUMN partner_order_no;

-- An eSIM, and each write sent to a partner, names the partner it is at: every later call goes there.
ALTER TABLE esims ADD COLUMN partner text NOT NULL DEFAULT 'esim-access';
ALTER TABLE esims ALTER COLUMN partner DROP DEFAULT;
ALTER TABLE partner_writes ADD COLUMN partner text NOT NULL DEFAULT 'esim-access';
ALTER TABLE partner_writes ALTER COLUMN partner DROP DEFAULT;

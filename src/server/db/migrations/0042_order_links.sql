-- The order row is the sale (issue 47 item 3): an exchange (migration 0026) and a replacement at our
-- cost (0027) are links from the new order to the eSIM's order it exchanges or replaces, beside the
-- purchase's outcome (purchase_outcomes, 0032). Written by orders/store.ts (an exchange is named
-- when its order opens) and esims/replacement.ts (a replacement with its order). "Replaced by" is
-- the same link read the other way.
CREATE TABLE order_links (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  link text NOT NULL CHECK (link IN ('exchange', 'replacement')),
  of_order_id uuid NOT NULL REFERENCES orders (id)
);
-- One replacement per eSIM.
CREATE UNIQUE INDEX order_links_one_replacement ON order_links (of_order_id) WHERE link = 'replacement';
-- An eSIM's exchanges (one paid exchange per eSIM, checked at checkout) and its replacement.
CREATE INDEX order_links_by_of ON order_links (of_order_id);

INSERT INTO order_links (order_id, link, of_order_id)
SELECT id, 'replacement', replaces FROM orders WHERE replaces IS NOT NULL;
-- The other way too, should a row name its replacement without the replacement naming it.
INSERT INTO order_links (order_id, link, of_order_id)
SELECT replaced_by, 'replacement', id FROM orders WHERE replaced_by IS NOT NULL
ON CONFLICT DO NOTHING;
INSERT INTO order_links (order_id, link, of_order_id)
SELECT id, 'exchange', exchange_of FROM orders WHERE exchange_of IS NOT NULL
ON CONFLICT DO NOTHING;

DROP INDEX orders_by_exchange;
DROP INDEX orders_one_replacement;
ALTER TABLE orders DROP CONSTRAINT orders_replacement_is_ours;
ALTER TABLE orders DROP COLUMN exchange_of, DROP COLUMN replaces, DROP COLUMN replaced_by;

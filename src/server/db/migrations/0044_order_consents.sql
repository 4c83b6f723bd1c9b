-- The order row is the sale (issue 47 item 3). The rest of what is not the sale moves off it:
-- - the two consents given before paying (BGB § 356(5)), when, and under which terms (0001):
--   written when the order opens (orders/store.ts) and copied to a replacement (esims/replacement.ts);
-- - when the order was detached from its deleted account (0001): orders/store.ts, forgetBuyer;
-- - when the buyer first saw the delivered eSIM (0011): alerts/alert-records.ts.
CREATE TABLE order_consents (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  terms_version text NOT NULL,
  terms_accepted_at timestamptz NOT NULL,
  immediate_start_requested_at timestamptz NOT NULL
);
INSERT INTO order_consents (order_id, terms_version, terms_accepted_at, immediate_start_requested_at)
SELECT id, terms_version, terms_accepted_at, immediate_start_requested_at FROM orders;

CREATE TABLE detached_orders (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  detached_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO detached_orders (order_id, detached_at) SELECT id, detached_at FROM orders WHERE detached_at IS NOT NULL;

CREATE TABLE seen_esims (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  seen_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO seen_esims (order_id, seen_at) SELECT id, esim_seen_at FROM orders WHERE esim_seen_at IS NOT NULL;

ALTER TABLE orders DROP COLUMN terms_version, DROP COLUMN terms_accepted_at, DROP COLUMN immediate_start_requested_at,
  DROP COLUMN detached_at, DROP COLUMN esim_seen_at;

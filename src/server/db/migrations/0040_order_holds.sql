-- The order row is the sale (issue 47 item 3): the fraud hold (migration 0017) moves to a row of its
-- own, written only by src/server/fraud/holds.ts. No row: never held. An order whose charge Radar
-- rates highest risk gets one (held) before delivery, and an admin's decision changes it (approved:
-- delivered; rejected: refunded in full).
CREATE TABLE order_holds (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  hold text NOT NULL CHECK (hold IN ('held', 'approved', 'rejected')),
  held_at timestamptz NOT NULL,
  -- Who decided (an operator's Firebase uid), when and why.
  decided_by text,
  decided_at timestamptz,
  reason text
);
-- The back office's "needs attention" and the audit's held_too_long: the orders held now.
CREATE INDEX order_holds_held ON order_holds (held_at) WHERE hold = 'held';

INSERT INTO order_holds (order_id, hold, held_at, decided_by, decided_at, reason)
SELECT id, hold, coalesce(held_at, updated_at), hold_decided_by, hold_decided_at, hold_reason FROM orders WHERE hold IS NOT NULL;

DROP INDEX orders_held;
ALTER TABLE orders DROP COLUMN hold, DROP COLUMN held_at, DROP COLUMN hold_decided_by, DROP COLUMN hold_decided_at,
  DROP COLUMN hold_reason;

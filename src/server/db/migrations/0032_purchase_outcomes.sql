-- One outcome per purchase (issue 46 item 1). A paid eSIM order ends kept (no row here; an operator
-- may still refund parts of it), refunded, replaced (a new eSIM at our cost) or exchanged (refunded
-- once another destination's eSIM was delivered): never two. The row is the decision, written by
-- one function (src/server/orders/purchase-outcome.ts) under the order's row lock, so a refund, a
-- replacement and an exchange asked at the same moment cannot all win.
CREATE TABLE purchase_outcomes (
  id bigserial PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  outcome text NOT NULL CHECK (outcome IN ('refunded', 'replaced', 'exchanged')),
  -- The replacement's order, or the exchange's new order. Deferred: a replacement is decided before
  -- its order is written, in the same transaction.
  by_order_id uuid REFERENCES orders (id) DEFERRABLE INITIALLY DEFERRED,
  asked_by text NOT NULL CHECK (asked_by IN ('buyer', 'operator', 'system')),
  operator_uid text,
  cause text NOT NULL,
  decided_at timestamptz NOT NULL DEFAULT now(),
  -- Undone (a refund made void because the eSIM was installed first; a replacement that could not
  -- be delivered, refunded instead): kept as a row, so the order's timeline says so.
  voided_at timestamptz,
  void_cause text,
  CHECK ((voided_at IS NULL) = (void_cause IS NULL))
);
CREATE UNIQUE INDEX purchase_outcomes_one ON purchase_outcomes (order_id) WHERE voided_at IS NULL;

-- What the existing rows already decided, in this order of precedence (a purchase that got two
-- outcomes before this table keeps the first it got here; the audit's one_outcome names it).
INSERT INTO purchase_outcomes (order_id, outcome, by_order_id, asked_by, cause)
SELECT o.id, 'replaced', o.replaced_by, 'buyer', 'migrated: replaced'
FROM orders o JOIN orders r ON r.id = o.replaced_by
WHERE r.state NOT IN ('fulfilment_failed', 'refunded');

INSERT INTO purchase_outcomes (order_id, outcome, by_order_id, asked_by, cause)
SELECT DISTINCT ON (f.order_id) f.order_id, 'exchanged', n.id, 'buyer', 'migrated: exchanged'
FROM refunds f LEFT JOIN orders n ON n.exchange_of = f.order_id AND n.state = 'delivered'
WHERE f.reason = 'exchanged' AND f.status <> 'cancelled'
ORDER BY f.order_id, n.created_at
ON CONFLICT (order_id) WHERE voided_at IS NULL DO NOTHING;

INSERT INTO purchase_outcomes (order_id, outcome, asked_by, operator_uid, cause)
SELECT DISTINCT ON (f.order_id) f.order_id, 'refunded', f.requested_by, f.operator_uid, 'migrated: ' || f.reason
FROM refunds f
WHERE f.status <> 'cancelled' AND f.reason <> 'exchanged'
  AND (SELECT coalesce(sum(g.amount_minor), 0) FROM refunds g WHERE g.order_id = f.order_id AND g.status <> 'cancelled')
    >= (SELECT coalesce(max(p.amount_minor), 0) FROM payments p WHERE p.order_id = f.order_id AND p.status = 'paid')
ORDER BY f.order_id, f.created_at
ON CONFLICT (order_id) WHERE voided_at IS NULL DO NOTHING;

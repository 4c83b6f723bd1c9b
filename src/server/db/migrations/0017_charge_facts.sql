-- What Stripe knows of a paid charge (issue 30 item 7, fraud signals; item 8, Stripe's fees), read
-- from the charge once the payment is recorded (src/server/payments/charge-facts.ts). Every column
-- stays null until it is read: a read that fails never holds up the order, and the reconcile job
-- reads it later.
ALTER TABLE payments ADD COLUMN charge_id text;
-- payment_method_details.card.fingerprint (or sepa_debit's): the same card in several accounts.
ALTER TABLE payments ADD COLUMN card_fingerprint text;
-- Radar's outcome.risk_level (normal, elevated, highest, not_assessed, unknown) and risk_score (0-100).
ALTER TABLE payments ADD COLUMN risk_level text;
ALTER TABLE payments ADD COLUMN risk_score integer;
-- The buyer's country as Stripe knows it: the billing address's, else the card's (ISO 3166-1 alpha-2).
ALTER TABLE payments ADD COLUMN buyer_country text CHECK (buyer_country ~ '^[A-Z]{2}$');
-- What Stripe kept of the payment (its balance transaction's fee), in the balance transaction's
-- currency (the account's settlement currency, which need not be the charge's); null when Stripe
-- reported none.
ALTER TABLE payments ADD COLUMN stripe_fee_minor integer CHECK (stripe_fee_minor >= 0);
ALTER TABLE payments ADD COLUMN stripe_fee_currency text CHECK (stripe_fee_currency ~ '^[A-Z]{3}$');
-- When the charge was read; null: not yet.
ALTER TABLE payments ADD COLUMN charge_facts_at timestamptz;
CREATE INDEX payments_by_fingerprint ON payments (card_fingerprint) WHERE card_fingerprint IS NOT NULL;
CREATE INDEX payments_facts_unread ON payments (created_at) WHERE charge_facts_at IS NULL AND status = 'paid';

-- An order whose charge Radar rates highest risk is held before delivery (src/server/fraud/holds.ts)
-- until an admin approves it (delivered) or rejects it (refunded in full): held, approved, rejected.
ALTER TABLE orders ADD COLUMN hold text CHECK (hold IN ('held', 'approved', 'rejected'));
ALTER TABLE orders ADD COLUMN held_at timestamptz;
-- Who decided (an operator's Firebase uid), when and why.
ALTER TABLE orders ADD COLUMN hold_decided_by text;
ALTER TABLE orders ADD COLUMN hold_decided_at timestamptz;
ALTER TABLE orders ADD COLUMN hold_reason text;
CREATE INDEX orders_held ON orders (held_at) WHERE hold = 'held';

-- What Stripe settled of a paid charge into our balance (issue 34: prices in the traveller's
-- currency, a balance in euros): its balance transaction's `amount` and `currency`, read beside the
-- fee (src/server/payments/charge-facts.ts). For a charge in euros it is the charge's amount; for
-- one in another currency Stripe converted it at its own rate (the transaction's exchange_rate), so
-- this is the one euro figure of the sale that is Stripe's word, not our estimate. Null while Stripe
-- reported no balance transaction (or before the charge was read).
ALTER TABLE payments ADD COLUMN settled_amount_minor integer CHECK (settled_amount_minor >= 0);
ALTER TABLE payments ADD COLUMN settled_currency text CHECK (settled_currency ~ '^[A-Z]{3}$');

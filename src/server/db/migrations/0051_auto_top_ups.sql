-- Automatic top-ups on a saved card (issue 49).

-- An automatic top-up is an order of its own, kind 'auto': a top-up of the eSIM it names, charged
-- off-session on the saved card. It never waits as an open order (it is charged, or its charge
-- failed), so the one-open-order-per-plan rule is for the buyer's own orders.
ALTER TABLE orders DROP CONSTRAINT orders_kind_check;
ALTER TABLE orders ADD CONSTRAINT orders_kind_check CHECK (kind IN ('esim', 'top_up', 'auto'));
ALTER TABLE orders DROP CONSTRAINT orders_top_up_names_esim;
ALTER TABLE orders ADD CONSTRAINT orders_top_up_names_esim CHECK ((kind <> 'esim') = (top_up_of IS NOT NULL));
DROP INDEX orders_one_open_per_plan;
CREATE UNIQUE INDEX orders_one_open_per_plan ON orders (uid, plan_id) WHERE state = 'pending_payment' AND cart_id IS NULL AND kind <> 'auto';

-- An off-session charge has a payment intent and no Checkout Session: recorded once per intent.
ALTER TABLE payments ALTER COLUMN checkout_session_id DROP NOT NULL;
CREATE UNIQUE INDEX payments_once_per_intent ON payments (provider, payment_intent_id, status, order_id)
  WHERE checkout_session_id IS NULL;

-- The buyer's saved card: their Customer at Stripe and its one card (the card's details stay at
-- Stripe; the brand, last four digits and expiry are what the pages show).
CREATE TABLE saved_cards (
  uid text PRIMARY KEY,
  stripe_customer_id text NOT NULL UNIQUE,
  -- Null until a card is saved (the Customer is made first, when the buyer asks to save one).
  payment_method_id text,
  brand text,
  last4 text,
  exp_month integer,
  exp_year integer,
  saved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Each eSIM's automatic top-ups (its order's id is the eSIM's id): the buyer's consent in their own
-- words and language, when, and the limits they set (PSD2: a merchant-initiated charge needs the
-- buyer's prior agreement to its terms).
CREATE TABLE auto_top_up_settings (
  esim_order_id uuid PRIMARY KEY REFERENCES orders (id),
  -- Null once the account is deleted: the consent stays as the record of what was charged.
  uid text,
  enabled boolean NOT NULL,
  -- The top-up bought (a top-up id, 'topup-1gb-7d'); null: the cheapest one offered then.
  package_id text,
  -- At most this many automatic top-ups of the eSIM, and this much a calendar month (UTC) in its currency.
  max_count integer NOT NULL CHECK (max_count BETWEEN 1 AND 10),
  monthly_cap_minor integer NOT NULL CHECK (monthly_cap_minor > 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  consent_text text NOT NULL,
  consent_lang text NOT NULL,
  consented_at timestamptz NOT NULL,
  -- Charges refused in a row (the bank asked for authentication, or declined): three turn it off.
  refusals_in_row integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auto_top_up_settings_by_owner ON auto_top_up_settings (uid);

-- Every change of a setting: who (buyer, operator:<uid>, e-mail link, shop), what, when.
CREATE TABLE auto_top_up_changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  esim_order_id uuid NOT NULL REFERENCES orders (id),
  by text NOT NULL,
  change text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auto_top_up_changes_by_esim ON auto_top_up_changes (esim_order_id, id);

-- One automatic top-up at most for each time an eSIM crosses 10 % left ('data:<round>': a top-up
-- starts a new round): two instances, a repeated notification or a restart find this row.
CREATE TABLE auto_top_ups (
  esim_order_id uuid NOT NULL REFERENCES orders (id),
  crossing text NOT NULL,
  -- 'due' (its job runs), 'charging' (its order made, the charge under way), 'charged' (paid: the
  -- order is delivered or refunded as any top-up), 'refused' (the bank asked or declined: the buyer
  -- may pay it on-session), 'skipped' (not charged: why says so).
  state text NOT NULL CHECK (state IN ('due', 'charging', 'charged', 'refused', 'skipped')),
  why text,
  order_id uuid UNIQUE REFERENCES orders (id),
  payment_intent_id text,
  -- When the buyer was told of a refused charge (or a skipped one): told once, after the state is stored.
  notified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (esim_order_id, crossing)
);

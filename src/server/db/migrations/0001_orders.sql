-- Orders, every change of their state, their payments, and the webhook events already handled
-- (DESIGN 6). Amounts are in minor units of `currency`; prices are VAT-inclusive.

CREATE TABLE orders (
  id uuid PRIMARY KEY,
  -- What the buyer quotes: shown as ES-<year>-<number, 6 digits>.
  number bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  -- The buyer's Firebase uid and e-mail; both null once the account is deleted (the books stay).
  uid text,
  email text,
  state text NOT NULL CHECK (state IN ('pending_payment', 'paid', 'provisioning', 'delivered', 'expired',
    'payment_failed', 'cancelled', 'fulfilment_failed', 'refund_requested', 'refunded')),
  -- The plan as sold, whatever the catalogue says later.
  plan_id text NOT NULL,
  destination text NOT NULL,
  plan jsonb NOT NULL,
  partner_code text NOT NULL,
  wholesale_usd_e4 integer NOT NULL CHECK (wholesale_usd_e4 >= 0),
  amount_minor integer NOT NULL CHECK (amount_minor >= 0),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  lang text NOT NULL,
  -- The two consents given before paying (BGB § 356(5)), when, and under which terms.
  terms_version text NOT NULL,
  terms_accepted_at timestamptz NOT NULL,
  immediate_start_requested_at timestamptz NOT NULL,
  checkout_session_id text UNIQUE,
  checkout_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  detached_at timestamptz
);
-- One open order per buyer and plan: a double click, a second tab or a retry finds it again.
CREATE UNIQUE INDEX orders_one_open_per_plan ON orders (uid, plan_id) WHERE state = 'pending_payment';
CREATE INDEX orders_by_owner ON orders (uid, created_at DESC);

CREATE TABLE order_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  from_state text,
  to_state text NOT NULL,
  -- What moved it: 'order_created', 'stripe:checkout.session.completed evt_…', 'account_deleted', …
  cause text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_events_by_order ON order_events (order_id, id);

CREATE TABLE payments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  provider text NOT NULL,
  checkout_session_id text NOT NULL,
  payment_intent_id text,
  status text NOT NULL CHECK (status IN ('paid', 'failed')),
  amount_minor integer NOT NULL,
  currency text NOT NULL,
  method_type text,
  card_brand text,
  card_last4 text,
  receipt_url text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, checkout_session_id, status)
);

-- Each provider's event is handled once: a replay finds its id here and changes nothing.
CREATE TABLE webhook_events (
  provider text NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, event_id)
);

-- The back office (issue 30): every operator action is a row that says who asked, when, what and
-- why (Saleor's model), written before the action is carried out and settled with its outcome.
-- The page sends one idempotency key per click: the same key again finds this row and does nothing twice.
CREATE TABLE operator_actions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  idempotency_key text NOT NULL UNIQUE,
  operator_uid text NOT NULL,
  operator_email text,
  -- note, resend_email, retry_delivery, refund, esim_suspend, esim_unsuspend, esim_revoke,
  -- approve, reject, block, unblock, delete_account, sales_pause, sales_resume, esim_read
  action text NOT NULL,
  order_id uuid REFERENCES orders (id),
  -- The account acted on (kept when the account is deleted: the record outlives it).
  account_uid text,
  reason text NOT NULL,
  -- What the action took (a note's text, a corrected address, an amount) and what came of it.
  details jsonb NOT NULL DEFAULT '{}',
  outcome text NOT NULL DEFAULT 'started' CHECK (outcome IN ('started', 'done', 'already', 'refused', 'pending', 'failed')),
  outcome_detail text,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz
);
CREATE INDEX operator_actions_by_order ON operator_actions (order_id, id) WHERE order_id IS NOT NULL;
CREATE INDEX operator_actions_by_account ON operator_actions (account_uid, id) WHERE account_uid IS NOT NULL;

-- An e-mail sent again by an operator (to the buyer's address or a corrected one) is not a second
-- automatic e-mail: the audit's one-of-a-kind check counts only the automatic ones.
ALTER TABLE order_emails ADD COLUMN operator_action_id bigint REFERENCES operator_actions (id);
ALTER TABLE order_emails ADD COLUMN to_address text;

-- The partner's prepaid balance below the provider's threshold: one e-mail per crossing (issue 30 item 8).
CREATE TABLE balance_alerts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  threshold_usd_e4 bigint NOT NULL,
  balance_usd_e4 bigint NOT NULL,
  crossed_at timestamptz NOT NULL DEFAULT now(),
  emailed_at timestamptz,
  -- Set when a read finds the balance back above the threshold: the next crossing alerts again.
  cleared_at timestamptz
);
CREATE UNIQUE INDEX balance_alerts_one_open ON balance_alerts ((true)) WHERE cleared_at IS NULL;

-- A pause the provider asked for, beside the automatic one (partner out of balance).
ALTER TABLE sales_pauses ADD COLUMN operator_action_id bigint REFERENCES operator_actions (id);

-- Delivery (DESIGN 6): the partner's eSIMs, top-ups, the reconcile job's schedule and refunds.

-- A new eSIM, or data and days added to one the buyer has (top_up_of: the order that bought it).
ALTER TABLE orders ADD COLUMN kind text NOT NULL DEFAULT 'esim' CHECK (kind IN ('esim', 'top_up'));
ALTER TABLE orders ADD COLUMN top_up_of uuid REFERENCES orders (id);
ALTER TABLE orders ADD CONSTRAINT orders_top_up_names_esim CHECK ((kind = 'top_up') = (top_up_of IS NOT NULL));
-- The partner's order for this one (eSIM Access orderNo); its transactionId is our id.
ALTER TABLE orders ADD COLUMN partner_order_no text;
-- The reconcile job: failed tries so far, when to try next, and the last failure (no credentials in it).
ALTER TABLE orders ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE orders ADD COLUMN last_error text;
-- Whoever works on an order holds it until then: a webhook and the job never work on one at once.
ALTER TABLE orders ADD COLUMN locked_until timestamptz;
-- The order e-mail goes once; the refund's id at the payment provider.
ALTER TABLE orders ADD COLUMN email_sent_at timestamptz;
ALTER TABLE orders ADD COLUMN refund_id text;
ALTER TABLE orders ADD COLUMN refund_reason text CHECK (refund_reason IN ('not_delivered', 'requested'));
-- What the reconcile job looks at: orders paid but not yet delivered or refunded, or still owed an e-mail.
CREATE INDEX orders_to_reconcile ON orders (next_attempt_at)
  WHERE state IN ('paid', 'provisioning', 'fulfilment_failed', 'refund_requested') OR (state = 'delivered' AND email_sent_at IS NULL);
CREATE INDEX orders_by_partner_order ON orders (partner_order_no);

-- The eSIMs the partner allocated, keyed by its esimTranNo (ICCIDs are reused). The activation
-- code is a credential: only its owner (the order's uid) is ever shown it.
CREATE TABLE esims (
  esim_tran_no text PRIMARY KEY,
  order_id uuid NOT NULL UNIQUE REFERENCES orders (id),
  iccid text NOT NULL,
  activation_code text NOT NULL,
  smdp_address text NOT NULL,
  matching_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('ready', 'installed', 'active', 'suspended', 'used_up', 'expired', 'cancelled')),
  installed boolean NOT NULL DEFAULT false,
  expires_at timestamptz,
  total_bytes bigint NOT NULL,
  used_bytes bigint NOT NULL DEFAULT 0,
  validity_days integer NOT NULL,
  -- When usage was last read from the partner: GET /esims asks again after 5 minutes.
  usage_checked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One jobs table (issue 47 item 1; src/server/jobs/queue.ts), after graphile-worker's: a job is
-- queued in the transaction of the state change that makes it due, claimed with FOR UPDATE SKIP
-- LOCKED, fenced by a lease number every write of its run checks, retried with a backoff computed
-- in SQL, and given up into 'dead', which the audit and the back office show.
CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  -- What it does: 'deliver', 'refund', 'email' (an order's work; the order's run moves it as far
  -- as it can) or 'sweep' (a periodic job of the reconcile job's, named by its key).
  kind text NOT NULL,
  -- At most one pending job per key: 'order:<id>' (one worker on an order at a time), 'sweep:<name>'.
  key text NOT NULL UNIQUE,
  order_id uuid REFERENCES orders (id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'dead')),
  run_at timestamptz NOT NULL DEFAULT now(),
  -- Failed tries since the last success or reset; dead when it reaches max_attempts.
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 25,
  last_error text,
  -- A worker's claim: held until locked_until (renewed while it works), fenced by lease.
  locked_until timestamptz,
  lease bigint NOT NULL DEFAULT 0,
  -- Bumped when something else queues the job again while it runs: its run then does not end it.
  revision integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_due ON jobs (run_at) WHERE state = 'pending';
CREATE INDEX jobs_dead ON jobs (updated_at) WHERE state = 'dead';
CREATE INDEX jobs_order ON jobs (order_id);

-- The order and refund e-mails owed and sent (was orders.email_sent_at): a row is owed from the
-- transaction that moves the order to delivered or refunded, and sent once (order_emails, 0002,
-- keeps counting the messages themselves).
CREATE TABLE email_outbox (
  order_id uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('order', 'refund')),
  owed_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  PRIMARY KEY (order_id, kind)
);

-- The e-mails as they stand: a delivered order's e-mail (sent when email_sent_at is set); a
-- refunded order's refund e-mail when it has a reason; an order once delivered and now refunded
-- sent its order e-mail (order_emails says so).
INSERT INTO email_outbox (order_id, kind, owed_at, sent_at)
SELECT id, 'order', updated_at, email_sent_at FROM orders WHERE state = 'delivered';
INSERT INTO email_outbox (order_id, kind, owed_at, sent_at)
SELECT DISTINCT o.id, 'order', o.updated_at, o.updated_at FROM orders o JOIN order_emails e ON e.order_id = o.id
WHERE o.state <> 'delivered' AND e.kind IN ('order', 'top_up');
INSERT INTO email_outbox (order_id, kind, owed_at, sent_at)
SELECT id, 'refund', updated_at, email_sent_at FROM orders WHERE state = 'refunded' AND refund_reason IS NOT NULL;

-- Every order with work left (what fulfilment/queue.ts's DUE_ORDERS_SQL selected) gets its job,
-- with its tries, error and time as they were; a claim held now has lapsed by the time this runs.
INSERT INTO jobs (kind, key, order_id, run_at, attempts, last_error)
SELECT CASE
         WHEN state IN ('paid', 'provisioning') THEN 'deliver'
         WHEN state IN ('fulfilment_failed', 'refund_requested') THEN 'refund'
         WHEN state IN ('delivered', 'refunded') AND email_sent_at IS NULL THEN 'email'
         ELSE 'refund'
       END,
       'order:' || id, id, coalesce(next_attempt_at, now()), attempts, last_error
FROM orders o
WHERE state IN ('provisioning', 'fulfilment_failed', 'refund_requested')
   OR (state = 'paid' AND (hold IS NULL OR hold = 'approved'))
   OR (state = 'delivered' AND email_sent_at IS NULL)
   OR (state = 'refunded' AND refund_reason IS NOT NULL AND email_sent_at IS NULL)
   OR EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.id AND r.status IN ('requested', 'pending', 'failed'));

-- The order row is the sale: its queue and outbox columns go.
DROP INDEX IF EXISTS orders_to_reconcile;
ALTER TABLE orders DROP COLUMN attempts, DROP COLUMN next_attempt_at, DROP COLUMN last_error, DROP COLUMN locked_until,
  DROP COLUMN lease, DROP COLUMN email_sent_at;

-- Alerts (issue 23): eSIM ready, 80 % of the data used, data used up, 1 day of validity left,
-- by e-mail and Web Push. See ALERT_KINDS in src/contract/shop-api.ts and src/server/alerts/.

-- What each buyer chose, per alert kind and channel (a missing row: on, the default).
CREATE TABLE alert_preferences (
  uid text NOT NULL,
  kind text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('email', 'push')),
  enabled boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (uid, kind, channel)
);

-- One device's Push API subscription (the endpoint is the push service's address for that browser
-- profile: the key). Its keys encrypt what is sent to it; lang is the page's language when it
-- subscribed, the notifications' language. Dropped when the push service answers 404 or 410, when
-- the device turns alerts off, and with the account.
CREATE TABLE push_subscriptions (
  endpoint text PRIMARY KEY,
  uid text NOT NULL,
  p256dh text NOT NULL,
  auth text NOT NULL,
  lang text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_sent_at timestamptz
);
CREATE INDEX push_subscriptions_by_owner ON push_subscriptions (uid);

-- The data thresholds' round: each top-up applied to the eSIM starts a new one (80 % and used up
-- may come again).
ALTER TABLE esims ADD COLUMN data_round integer NOT NULL DEFAULT 0;

-- When the buyer first saw the delivered eSIM (the payment page's answer, My eSIMs): the
-- 'eSIM ready' push is for a buyer who had left by then.
ALTER TABLE orders ADD COLUMN esim_seen_at timestamptz;

-- Each alert at most once per eSIM, kind and round (the data round; for 1 day left the validity's
-- end; 'ready' once), claimed before anything is sent. Each channel's state is recorded:
-- pending until sent (a failed send is retried by the reconcile job), sent, or skipped (turned
-- off, no address, no device, the account deleted).
CREATE TABLE esim_alerts (
  esim_tran_no text NOT NULL REFERENCES esims (esim_tran_no),
  kind text NOT NULL,
  round text NOT NULL,
  order_id uuid NOT NULL REFERENCES orders (id),
  -- What was left when it was due (bytes used and in all, the validity's end), as the texts say it.
  facts jsonb NOT NULL,
  email_state text NOT NULL CHECK (email_state IN ('pending', 'sent', 'skipped')),
  push_state text NOT NULL CHECK (push_state IN ('pending', 'sent', 'skipped')),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (esim_tran_no, kind, round)
);
CREATE INDEX esim_alerts_pending ON esim_alerts (created_at) WHERE email_state = 'pending' OR push_state = 'pending';

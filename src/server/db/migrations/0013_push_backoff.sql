-- Alert sends that fail (issue 29, defect 2): retried with growing waits, then given up; push
-- devices that keep failing are dropped. See src/server/alerts/alert-records.ts and
-- src/server/push/subscriptions.ts.

-- When the reconcile job may try the alert's pending channels again: after a failure the next wait
-- (doubling each time), while a send is under way a lease (so no other instance repeats it).
-- Rows from before are due at once.
ALTER TABLE esim_alerts ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now();

-- 'given_up': still failing after the last attempt (last_error says why); never tried again.
ALTER TABLE esim_alerts DROP CONSTRAINT esim_alerts_email_state_check;
ALTER TABLE esim_alerts ADD CONSTRAINT esim_alerts_email_state_check CHECK (email_state IN ('pending', 'sent', 'skipped', 'given_up'));
ALTER TABLE esim_alerts DROP CONSTRAINT esim_alerts_push_state_check;
ALTER TABLE esim_alerts ADD CONSTRAINT esim_alerts_push_state_check CHECK (push_state IN ('pending', 'sent', 'skipped', 'given_up'));

-- Failed sends to the device in a row since its last accepted one, and when the first of them was:
-- enough of them over long enough and the device is dropped.
ALTER TABLE push_subscriptions ADD COLUMN failures integer NOT NULL DEFAULT 0;
ALTER TABLE push_subscriptions ADD COLUMN failing_since timestamptz;

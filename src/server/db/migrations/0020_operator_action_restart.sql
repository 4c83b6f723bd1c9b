-- An operator action whose instance died while it ran stays 'started': after OPS_ACTION_STALE_MS
-- the same click (its idempotency key) may run it again, every action reading Stripe's or the
-- partner's state before it writes. When this try began, for telling a stale one from one under way.
ALTER TABLE operator_actions ADD COLUMN started_at timestamptz NOT NULL DEFAULT now();

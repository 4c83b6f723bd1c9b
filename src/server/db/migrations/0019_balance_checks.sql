-- When the partner's balance was last read for the low-balance alert (issue 30 item 8): one row,
-- claimed by whichever API instance's reconcile job reads it next, so several instances read it at
-- most once per LOW_BALANCE_CHECK_EVERY_MS between them.
CREATE TABLE balance_checks (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  checked_at timestamptz NOT NULL
);

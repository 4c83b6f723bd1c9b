-- Support's e-mails as rows (issue 32 item 4): the buyer's confirmation, the provider's notice and
-- an operator's reply are written before they are sent, so one the mail relay turned away is sent
-- again by the reconcile job instead of being only logged. Deleted with their request (account deletion).
CREATE TABLE support_emails (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id uuid NOT NULL REFERENCES support_requests (id) ON DELETE CASCADE,
  -- What it is, for the log: 'confirmation', 'provider notice', 'reply'.
  what text NOT NULL,
  to_address text NOT NULL,
  -- The rendered e-mail (subject, text, html): rendered once, in the language it was written for.
  email jsonb NOT NULL,
  -- Tries so far; the row is claimed by pushing next_attempt_at ahead before each try (one sender at a time).
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX support_emails_due ON support_emails (next_attempt_at) WHERE sent_at IS NULL;

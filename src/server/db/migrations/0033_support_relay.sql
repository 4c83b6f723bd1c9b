-- The support form is no open mail relay (issue 46 item 3): each form token is good for one request.
-- A token's nonce is kept here once a request used it; a token is good for a day after the form was
-- shown (SUPPORT_FORM_MAX_AGE_MS), so rows whose form was shown over a day ago are cleared as new
-- ones come (spendFormToken in src/server/support/store.ts).
CREATE TABLE support_form_tokens_used (
  nonce text PRIMARY KEY,
  issued_at timestamptz NOT NULL,
  used_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX support_form_tokens_used_issued ON support_form_tokens_used (issued_at);

-- Travellers (issue 33 item 3): each eSIM of an order can be given to a traveller, a name and
-- optionally an e-mail address. The traveller gets their own e-mail with the eSIM and a private
-- link to its page; the buyer still owns the order and sees it in My eSIMs, labelled.
ALTER TABLE orders ADD COLUMN traveller_name text CHECK (char_length(traveller_name) BETWEEN 1 AND 80);
ALTER TABLE orders ADD COLUMN traveller_email text CHECK (char_length(traveller_email) BETWEEN 3 AND 254);
-- The traveller's e-mail went out (once, as the buyer's own: fulfilment's emails.ts).
ALTER TABLE orders ADD COLUMN traveller_emailed_at timestamptz;

-- A traveller's link to their eSIM's page. Only the SHA-256 of its random token is kept, so a copy
-- of the database opens no eSIM. One live link an eSIM: a new one (sent again) revokes the last.
-- It works until the eSIM ends (checked when read), or until the buyer revokes it.
CREATE TABLE traveller_links (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders (id),
  token_sha256 text NOT NULL UNIQUE CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  -- Where it was sent, when it was (null: handed to the buyer to pass on).
  emailed_to text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX traveller_links_one_live ON traveller_links (order_id) WHERE revoked_at IS NULL;

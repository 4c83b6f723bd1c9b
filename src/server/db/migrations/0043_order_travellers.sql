-- The order row is the sale (issue 47 item 3): who travels on an eSIM and when (migrations 0025,
-- 0030) moves to a row of its own, written by src/server/travellers (travellers.ts), orders/store.ts
-- (the trip's start given at checkout) and esims/replacement.ts (a replacement keeps the trip's
-- start of the eSIM it replaces). No row: the buyer's own eSIM, no trip start.
CREATE TABLE order_travellers (
  order_id uuid PRIMARY KEY REFERENCES orders (id),
  -- The traveller the eSIM is for (issue 33); null: the buyer's own. Their address is optional.
  name text CHECK (char_length(name) BETWEEN 1 AND 80),
  email text CHECK (char_length(email) BETWEEN 3 AND 254),
  -- The traveller's e-mail went out (once, as the buyer's own: fulfilment's emails.ts).
  emailed_at timestamptz,
  -- The day the trip starts, if the buyer said (YYYY-MM-DD): the get-connected check.
  trip_starts_on text CHECK (trip_starts_on ~ '^\d{4}-\d{2}-\d{2}$'),
  CHECK (email IS NULL OR name IS NOT NULL)
);
-- The reconcile job's look for eSIMs whose trip began and that have not connected.
CREATE INDEX order_travellers_trip_check ON order_travellers (trip_starts_on) WHERE trip_starts_on IS NOT NULL;

INSERT INTO order_travellers (order_id, name, email, emailed_at, trip_starts_on)
SELECT id, traveller_name, traveller_email, traveller_emailed_at, trip_starts_on FROM orders
WHERE traveller_name IS NOT NULL OR traveller_email IS NOT NULL OR traveller_emailed_at IS NOT NULL OR trip_starts_on IS NOT NULL;

DROP INDEX orders_trip_check;
ALTER TABLE orders DROP COLUMN traveller_name, DROP COLUMN traveller_email, DROP COLUMN traveller_emailed_at,
  DROP COLUMN trip_starts_on;

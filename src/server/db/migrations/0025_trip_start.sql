-- The day the buyer's trip starts, if they gave it at checkout (issue 32 item 3): an eSIM with no
-- data by the day after gets the get-connected checklist. The buyer's calendar day, so a date, kept
-- as its ISO text (YYYY-MM-DD) so that no driver turns it into a midnight in some time zone.
ALTER TABLE orders ADD COLUMN trip_starts_on text CHECK (trip_starts_on ~ '^\d{4}-\d{2}-\d{2}$');
-- The reconcile job's look for eSIMs whose trip began and that have not connected.
CREATE INDEX orders_trip_check ON orders (trip_starts_on) WHERE trip_starts_on IS NOT NULL AND state = 'delivered';

-- The APN the partner names for each eSIM (esim/query's apn, issue 22): the get-connected
-- checklist shows it, with a copy button, for a phone whose data does not start. Null when the
-- partner names none, and for eSIMs stored before.
ALTER TABLE esims ADD COLUMN apn text;

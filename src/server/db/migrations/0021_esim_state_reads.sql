-- When the "Not working?" diagnosis last read the eSIM's state from the partner (issue 32 item 2):
-- claimed by the read, so an eSIM costs the partner at most one such read per DIAGNOSIS_READ_EVERY_MS
-- across every API instance, however often its owner asks.
ALTER TABLE esims ADD COLUMN state_read_at timestamptz;

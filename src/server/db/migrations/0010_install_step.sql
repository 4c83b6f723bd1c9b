-- Where the eSIM is on the phone (issue 22): the partner's SM-DP+ and eSIM status as one step
-- (released, downloaded, installed, enabled, in_use, deleted, expired; see InstallStep in
-- src/contract/shop-api.ts), and when it was reached, for My eSIMs' live status line and its help
-- (downloaded but not installed for minutes). Null until the partner says (and for eSIMs stored before).
ALTER TABLE esims ADD COLUMN install_step text;
ALTER TABLE esims ADD COLUMN install_step_at timestamptz;

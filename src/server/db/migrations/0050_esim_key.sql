-- An eSIM is keyed by its partner and that partner's own id for it (issue 48 item 1): two partners
-- may name eSIMs alike, and every later call for an eSIM goes to its own partner. Its alerts and
-- the one-top-up-at-a-time slot carry the partner too.
ALTER TABLE esim_alerts ADD COLUMN partner text;
UPDATE esim_alerts a SET partner = e.partner FROM esims e WHERE e.esim_tran_no = a.esim_tran_no;
ALTER TABLE esim_alerts ALTER COLUMN partner SET NOT NULL;
ALTER TABLE esim_alerts DROP CONSTRAINT esim_alerts_esim_tran_no_fkey;
ALTER TABLE esim_alerts DROP CONSTRAINT esim_alerts_pkey;
ALTER TABLE esims DROP CONSTRAINT esims_pkey;
ALTER TABLE esims ADD PRIMARY KEY (partner, esim_tran_no);
ALTER TABLE esim_alerts ADD PRIMARY KEY (partner, esim_tran_no, kind, round);
ALTER TABLE esim_alerts ADD FOREIGN KEY (partner, esim_tran_no) REFERENCES esims (partner, esim_tran_no);

DROP INDEX partner_writes_one_top_up_per_esim;
CREATE UNIQUE INDEX partner_writes_one_top_up_per_esim ON partner_writes (partner, esim_tran_no)
  WHERE call = 'esim/topup' AND outcome = 'sent';

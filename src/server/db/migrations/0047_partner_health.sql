-- Health per partner (issue 48 item 6): the automatic sales pause (a partner out of balance) and the
-- low-balance alert are each one partner's, so the shop stops selling only when no partner can
-- deliver a plan. An operator's pause names no partner and still stops the whole shop. Every
-- automatic pause and every alert before this one was eSIM Access's. Written by
-- orders/sales-pause.ts and ops/balance-alert.ts alone.
ALTER TABLE sales_pauses ADD COLUMN partner text;
UPDATE sales_pauses SET partner = 'esim-access' WHERE operator_action_id IS NULL AND reason = 'partner_out_of_balance';
DROP INDEX sales_pauses_one_open;
-- One open pause for the whole shop (partner NULL) and one for each partner.
CREATE UNIQUE INDEX sales_pauses_one_open ON sales_pauses ((COALESCE(partner, ''))) WHERE cleared_at IS NULL;

ALTER TABLE balance_alerts ADD COLUMN partner text NOT NULL DEFAULT 'esim-access';
ALTER TABLE balance_alerts ALTER COLUMN partner DROP DEFAULT;
DROP INDEX balance_alerts_one_open;
CREATE UNIQUE INDEX balance_alerts_one_open ON balance_alerts (partner) WHERE cleared_at IS NULL;

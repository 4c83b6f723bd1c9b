-- An eSIM replaced at our cost (issue 32 item 3): one never downloaded, or deleted from the phone
-- before it carried any data, gets a new eSIM of the same plan in one step. The replacement is an
-- order of its own with nothing paid (amount 0, no payment), naming the order it replaces, so the
-- cost is ours on the record; the partner cancels (and refunds us) the old eSIM only when it was
-- never downloaded. One replacement per eSIM.
ALTER TABLE orders ADD COLUMN replaces uuid REFERENCES orders (id);
-- And the other way, written in the same statement: every read of the old order (My eSIMs, the
-- order page) knows it was replaced without a join.
ALTER TABLE orders ADD COLUMN replaced_by uuid REFERENCES orders (id);
CREATE UNIQUE INDEX orders_one_replacement ON orders (replaces) WHERE replaces IS NOT NULL;
ALTER TABLE orders ADD CONSTRAINT orders_replacement_is_ours CHECK (replaces IS NULL OR (amount_minor = 0 AND kind = 'esim'));

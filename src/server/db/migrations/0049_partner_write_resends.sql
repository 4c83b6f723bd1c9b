-- When a partner write was last sent again (issue 48 item 5): a write whose answers were lost is
-- sent again on the next try, and may still be on its way at the partner long after its first send.
-- An order goes to another partner only once its own's last send has been quiet for
-- PARTNER_WRITE_GONE_AFTER_MS, read by the database's clock. NULL: sent once, at sent_at.
ALTER TABLE partner_writes ADD COLUMN last_sent_at timestamptz;

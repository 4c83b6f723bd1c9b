-- The "you're online" alert (issue 32 item 3) is for an eSIM's first data: an eSIM already using
-- data when it came is past that news, so it is recorded as skipped rather than sent on its next reading.
INSERT INTO esim_alerts (esim_tran_no, kind, round, order_id, facts, email_state, push_state)
SELECT esim_tran_no, 'connected', 'first', order_id,
       jsonb_build_object('usedBytes', used_bytes, 'totalBytes', total_bytes, 'expiresAt', expires_at),
       'skipped', 'skipped'
FROM esims WHERE used_bytes > 0
ON CONFLICT DO NOTHING;

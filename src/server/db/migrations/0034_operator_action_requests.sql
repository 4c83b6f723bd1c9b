-- What an operator's click asked (issue 46 item 4): the operator, the action, the order or account
-- and the body (the reason and the action's details), kept apart from what came of it. The same
-- idempotency key finds its row again, and runs it again after a failed try, only for this very
-- request; any other request under that key is answered 409 and does nothing.
ALTER TABLE operator_actions ADD COLUMN request jsonb;
-- Rows written before: until now no action added details of its outcome, so `details` is what was asked.
UPDATE operator_actions SET request = jsonb_build_object(
  'operator', operator_uid, 'action', action, 'order', order_id, 'account', account_uid, 'reason', reason, 'details', details);

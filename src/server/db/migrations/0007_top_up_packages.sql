-- Top-ups are the partner's own packages (issue 24 item 2): a top-up order keeps the code of the
-- top-up package it sold in partner_code, and that code is what the partner is sent. Before this,
-- a top-up order kept its plan's code and the partner was sent 'TOPUP_' || that code: such orders
-- get the code they were sold to send, so one still open or undelivered is sent what it always was.
UPDATE orders SET partner_code = 'TOPUP_' || partner_code
  WHERE kind = 'top_up' AND partner_code NOT LIKE 'TOPUP\_%';

-- One top-up of an eSIM at a time (issue 29, defect 1). A top-up's write is recorded before its
-- totals are read and before it is sent; while it is unsettled ('sent'), no other order can record a
-- top-up of that eSIM. So the totals read before a top-up, and read again after its answer was lost,
-- can only have been changed by that top-up: "read back: applied" is never another order's data.
-- A unique index, not a check before the insert: two instances checking at once both passed it.
CREATE UNIQUE INDEX partner_writes_one_top_up_per_esim ON partner_writes (esim_tran_no)
  WHERE call = 'esim/topup' AND outcome = 'sent';

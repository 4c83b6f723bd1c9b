-- Purchases at a partner that no order claims (issue 48: eSIM Go's eSIMs bought by a transaction
-- whose answer was lost before their label was written), found and released by the reconcile job
-- (reconcile/partner-orphans.ts). Each is recorded before its release is sent, then how it ended:
-- 'released' (refunded to the partner balance), or 'refused: …' (it reached a phone, or the
-- partner would not refund it): an operator's to look at. Written by that sweep alone.
CREATE TABLE partner_orphans (
  partner text NOT NULL,
  esim_key text NOT NULL,
  partner_order_no text NOT NULL,
  found_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  outcome text,
  PRIMARY KEY (partner, esim_key)
);

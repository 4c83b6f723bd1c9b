-- The Stripe Customer an automatic top-up's charge is made for, kept from when its charge starts:
-- an earlier try's charge whose answer was lost is looked for there, even after the buyer removed
-- the card or deleted the account (which delete the Customer's row in saved_cards).
ALTER TABLE auto_top_ups ADD COLUMN stripe_customer_id text;
-- (0051 says an automatic top-up never waits as an open order: it does, pending payment while its
-- charge is under way; reusing a buyer's open order and cancelling a person's open orders leave kind
-- 'auto' to its job, orders/store.ts.)

-- Automatic top-ups ticked at checkout: the order's payment saves the card. Stored with the order's
-- consents in the statement that makes it, so a second press (a double click) compares the same tick.
ALTER TABLE order_consents ADD COLUMN saves_card boolean NOT NULL DEFAULT false;

-- The Stripe Customer an automatic top-up's charge is made for, kept from when its charge starts:
-- an earlier try's charge whose answer was lost is looked for there, even after the buyer removed
-- the card or deleted the account (which delete the Customer's row in saved_cards).
ALTER TABLE auto_top_ups ADD COLUMN stripe_customer_id text;

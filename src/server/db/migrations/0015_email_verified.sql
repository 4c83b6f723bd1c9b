-- Whether the buyer's address was verified when they ordered (issue 29, defect 6): the order e-mail
-- carries the eSIM's install codes (whoever installs first owns the eSIM) only to a verified address.
-- Orders from before it was kept count as unverified: their e-mail, if still owed, points to My eSIMs.
ALTER TABLE orders ADD COLUMN email_verified boolean NOT NULL DEFAULT false;

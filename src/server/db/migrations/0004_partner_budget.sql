-- The partner's request budget, one for every API instance (issue 20, DESIGN 7): eSIM Access
-- allows 8 requests a second per account. The rules are in src/server/partner/partner-budget.ts.

-- One row per request to the partner that started recently or is still under way. A request
-- holds its slot from before it is sent until one window after its answer came back (while it is
-- under way, until a lease runs out, in case its process dies); rows past held_until are pruned.
CREATE TABLE partner_budget_slots (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account text NOT NULL,
  priority smallint NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- NULL while the request is under way.
  ended_at timestamptz,
  held_until timestamptz NOT NULL
);
CREATE INDEX partner_budget_slots_by_account ON partner_budget_slots (account, held_until);

-- Per account and API instance, the most urgent request that instance has waiting for a slot
-- (0 deliveries, 1 refunds and top-ups, 2 usage reads), refreshed while it waits and removed when
-- nothing waits: no instance takes a slot while another has a more urgent request waiting.
CREATE TABLE partner_budget_waiters (
  account text NOT NULL,
  instance uuid NOT NULL,
  priority smallint NOT NULL,
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (account, instance)
);

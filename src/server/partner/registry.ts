import { PartnerBreaker, withBreaker } from './breaker.ts';
import { countingDeliveries, DeliveriesInFlight } from './deliveries-in-flight.ts';
import type { PartnerBudgetRate, PartnerBudgetUse } from './partner-budget.types.ts';
import type { EsimPartner } from './partner.types.ts';
import type { Partners } from './registry.types.ts';

/** eSIM Access's id: every order and eSIM from before the registry (migration 0046) is there. */
export const ESIM_ACCESS = 'esim-access';

/**
 * The registry of the partners given, by id; the first is the one the catalogue is sold through.
 * Each partner's calls are counted by a circuit breaker of its own (breaker.ts). `budgets`: each
 * partner's request budget in the database, for the back office and for spreading orders by its
 * backlog (none: null, and no backlog).
 */
export function partnerRegistry(
  adapters: Readonly<Record<string, EsimPartner>>,
  options: {
    now?: () => number;
    budgets?: Readonly<Record<string, Partial<PartnerBudgetRate & { use(): Promise<PartnerBudgetUse> }>>>;
  } = {},
): Partners {
  const { now } = options;
  const ids = Object.keys(adapters);
  if (ids.length === 0) throw new Error('The shop needs at least one eSIM partner');
  const breakers = Object.fromEntries(ids.map((id) => [id, new PartnerBreaker(now)]));
  const inFlight = Object.fromEntries(ids.map((id) => [id, new DeliveriesInFlight(now)]));
  const partners = Object.fromEntries(ids.map((id) => [id, withBreaker(countingDeliveries(adapters[id]!, inFlight[id]!), breakers[id]!)]));
  return {
    ids,
    nameOf: (id) => partners[id]?.name ?? id,
    budgetUse: async (id) => (await options.budgets?.[id]?.use?.()) ?? null,
    backlogSeconds: (id) =>
      options.budgets?.[id]?.secondsFor?.(inFlight[id]?.requestsLeft(partners[id]?.requestsPerDelivery ?? { order: 1, read: 1 }) ?? 0) ?? 0,
    breaker(id) {
      const breaker = breakers[id];
      return { state: breaker?.state ?? 'closed', failures: breaker?.failures ?? 0 };
    },
    of(id) {
      const partner = partners[id];
      if (!partner) throw new Error(`No eSIM partner "${id}" in this shop (it has ${ids.join(', ')})`);
      return partner;
    },
  };
}

import type { BreakerState } from './breaker.ts';
import type { PartnerBudgetUse } from './partner-budget.types.ts';
import type { EsimPartner } from './partner.types.ts';

/**
 * The partners the shop orders from, by id (issue 48). Every order, eSIM and partner write names
 * its partner by this id, and every later call for it goes to that partner.
 */
export interface Partners {
  /** The ids this shop runs with, the one the catalogue is sold through first. */
  readonly ids: readonly string[];
  /** The partner with this id (a row's `partner`); throws for one this shop does not run with. */
  of(id: string): EsimPartner;
  /** The partner's name ('eSIM Go') for operators; the id itself for one this shop does not run with. */
  nameOf(id: string): string;
  /** The partner's circuit breaker in this instance, and its failed calls in a row. */
  breaker(id: string): { state: BreakerState; failures: number };
  /** How much of the partner's request budget is in use now, across instances; null when its budget is this process's own. */
  budgetUse(id: string): Promise<PartnerBudgetUse | null>;
  /** How long the partner's deliveries under way in this instance take at its budget's rate, roughly (0: none, or its budget is unknown). */
  backlogSeconds(id: string): number;
}

import type { PartnerBudget, PartnerBudgetLimit } from './partner-budget.types.ts';
import type { EsimPartner, PartnerNotification } from './partner.types.ts';

/**
 * A partner the shop may run with beside eSIM Access, the first (issue 48): everything the shop
 * needs of it, from its own folder. The list of them is partner-modules.ts; the shop runs with each
 * one the environment configures, and names no partner of them anywhere else.
 */
export interface PartnerModule {
  /** Its id on every row (orders, eSIMs, partner writes) and in its callbacks' path, POST /webhooks/<id>. */
  readonly id: string;
  /** Its account from the environment, ready to run; undefined when not configured. Throws on a bad value. */
  fromEnv(env: Readonly<Record<string, string | undefined>>): ConfiguredPartner | undefined;
}

export interface ConfiguredPartner {
  readonly id: string;
  /**
   * Its request budget across instances (partner-budget.ts): the rows' account (never a secret),
   * its limit, and how long a request may hold its slot (at least as long as the adapter waits for it).
   */
  readonly budget: { account: string; limit: PartnerBudgetLimit; leaseMs: number };
  /** Its adapter, its requests taking turns in `budget` (none: this process's own limiter). */
  create(budget?: PartnerBudget): EsimPartner;
  /** Its signed callbacks (POST /webhooks/<id>), when it sends any. */
  readonly callbacks?: PartnerCallbacks;
}

/**
 * Reads one callback from its raw body and headers: its notification, 'unsigned' when the signature
 * does not verify (401), undefined when it is none of the partner's callbacks (400). Each is a hint,
 * read back from the partner before anything is stored (fulfilment/partner-webhook.ts).
 */
export type PartnerCallbacks = (raw: string, header: (name: string) => string | undefined) => PartnerNotification | 'unsigned' | undefined;

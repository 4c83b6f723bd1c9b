import type { UserLimiter } from '../limits.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { EsimStore } from './store.types.ts';

/**
 * What a buyer's action on their eSIM (a refund, buyer-refund.ts; a replacement, replacement.ts)
 * is built with, and the answers both can end in besides their own.
 */
export interface BuyerActionDeps {
  esims: Pick<EsimStore, 'ownedOne' | 'refresh'>;
  partners: Partners;
  limits: Pick<UserLimiter, 'take'>;
}

export type BuyerActionRefusal =
  /** The caller's requests of this kind ran out for now. */
  | { outcome: 'too_many_attempts'; retryAfterSeconds: number }
  /** Not the caller's eSIM, or none has this id. */
  | { outcome: 'no_such_esim' }
  /** The partner could not say what state the eSIM is in: nothing done, the buyer can try again. */
  | { outcome: 'partner_unavailable' };

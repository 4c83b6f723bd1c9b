import { BUYER_REFUND_ANSWER_MS } from '../../config/constants.ts';
import type { BuyerActionDeps, BuyerActionRefusal } from './buyer-actions.types.ts';
import type { OrderRunner } from './services.types.ts';
import { buyersRefund } from '../refunds/refund-command.ts';
import { RefundRefused } from '../refunds/refund-command.types.ts';
import { isUuid } from '../uuid.ts';
import { readAtPartner } from './partner-read.ts';
import type { OwnedEsim } from './store.types.ts';
import { esimStatus, isRefundable } from './view.ts';

export interface BuyerRefundDeps extends BuyerActionDeps {
  fulfilment: Pick<OrderRunner, 'requestRefund'>;
}

/** How a buyer's refund of their eSIM ended: POST /esims/{id}/refund answers each with its own status. */
export type BuyerRefundResult =
  /** Asked for (or already asked by another tab): the eSIM as it is now. */
  | { outcome: 'requested'; owned: OwnedEsim }
  /** Installed, or bought more than 30 days ago (or not delivered): nothing refunded. */
  | { outcome: 'not_refundable' }
  | BuyerActionRefusal;

/**
 * A buyer's refund of their own never-installed eSIM (DESIGN 6): what we store decides first, at no
 * cost to the partner; then one read of the partner, since an eSIM installed a minute ago is no
 * longer refundable (terms); then the one refund command.
 */
export async function buyerRefund(deps: BuyerRefundDeps, uid: string, esimId: string): Promise<BuyerRefundResult> {
  const { esims, fulfilment, limits } = deps;
  // A few a minute per user: each one that gets past the local checks costs the partner's budget, shared with every delivery.
  const wait = await limits.take('refunds', uid);
  if (wait !== undefined) return { outcome: 'too_many_attempts', retryAfterSeconds: wait };
  const found = isUuid(esimId) ? await esims.ownedOne(uid, esimId) : undefined;
  if (!found) return { outcome: 'no_such_esim' };
  // What we know first (the order's state, the 30 days, the installed flag the partner's
  // notifications keep): an eSIM that is not refundable by it costs the partner nothing.
  if (!isRefundable(esimStatus(found.order, found.esim, new Date()), found.order, found.esim, new Date()))
    return { outcome: 'not_refundable' };
  // Then one read of the partner: an eSIM installed a minute ago is no longer refundable (terms).
  // Without the partner's answer nothing is refunded: the buyer can try again.
  const now = await readAtPartner(deps, uid, found);
  if (!now) return { outcome: 'partner_unavailable' };
  const { order, esim } = now;
  if (!isRefundable(esimStatus(order, esim, new Date()), order, esim, new Date())) return { outcome: 'not_refundable' };
  // Refused when the purchase's outcome was decided meanwhile (replaced or exchanged in another tab,
  // orders/purchase-outcome.ts), or the order moved on (another tab's refund: the eSIM as it is now answers).
  const refused = await fulfilment.requestRefund(buyersRefund(order.id), { answerWithinMs: BUYER_REFUND_ANSWER_MS }).then(
    () => false,
    (error: unknown) => {
      if (!(error instanceof RefundRefused)) throw error;
      return true;
    },
  );
  const owned = (await esims.ownedOne(uid, order.id))!;
  const refunding = (status: string) => status === 'refunding' || status === 'refunded';
  if (refused && !refunding(esimStatus(owned.order, owned.esim, new Date()))) return { outcome: 'not_refundable' };
  return { outcome: 'requested', owned };
}

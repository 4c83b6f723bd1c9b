/**
 * The one refund command (issue 30 item 5, DESIGN 8): the buyer's refund button, an operator's
 * refund and the shop's own (not delivered, account deleted, out of balance, a rejected order) all
 * ask for their money back through it, and it alone asks Stripe (implementation: refund-command.ts).
 */
export interface RefundCommand {
  /** `answerWithinMs`: answers after this long at most, the refund as it stands, while the order's run goes on. */
  requestRefund(request: RefundRequest, options?: { answerWithinMs?: number }): Promise<RefundOutcome>;
}

/**
 * Why a refund was asked: the shop's reasons, the buyer's ('requested', or 'exchanged': their unused
 * eSIM exchanged for another destination's, refunded once the new one is delivered), or an operator's (its words in `note`).
 */
export type RefundReason =
  'not_delivered' | 'requested' | 'exchanged' | 'payment_mismatch' | 'account_deleted' | 'out_of_balance' | 'fraud' | 'operator';

export interface RefundRequest {
  orderId: string;
  /** In the payment's currency's minor units; absent: what is left of the payment. */
  amountMinor?: number;
  requestedBy: 'buyer' | 'operator' | 'system';
  /** Required for an operator's refund, and only for one. */
  operatorUid?: string;
  reason: RefundReason;
  /** The operator's words. */
  note?: string;
  /** The exchange's new order, for a refund with reason 'exchanged'. */
  exchangeOrderId?: string;
  /** The caller's key for this one refund: the same key again (a double click) refunds once. */
  idempotencyKey: string;
}

export interface RefundOutcome {
  /** The refund as it stands once Stripe was asked (status 'succeeded', or 'pending' while Stripe settles it, …). */
  refund: RefundRow;
  /** False: the same idempotency key made it before. */
  created: boolean;
}

/** A refund that is not made, and why: nothing of it was recorded or asked of Stripe. */
export class RefundRefused extends Error {
  // A field, not a parameter property: Node's type stripping (npm start) refuses those.
  readonly code: 'order_not_found' | 'not_paid' | 'exceeds_payment' | 'idempotency_key_reused' | 'asked_by_nobody' | 'not_refundable';
  constructor(
    code: 'order_not_found' | 'not_paid' | 'exceeds_payment' | 'idempotency_key_reused' | 'asked_by_nobody' | 'not_refundable',
    message: string,
  ) {
    super(message);
    this.code = code;
    this.name = 'RefundRefused';
  }
}

/** A refund as stored (migration 0016_refunds.sql; the state model: settle.ts). */
export interface RefundRow {
  id: string;
  order_id: string;
  requested_by: RefundRequest['requestedBy'];
  operator_uid: string | null;
  reason: RefundReason;
  note: string | null;
  amount_minor: number;
  currency: string;
  status: RefundRowStatus;
  stripe_refund_id: string | null;
  asks: number;
  failures: number;
  idempotency_key: string;
  created_at: Date;
  status_at: Date;
}

export type RefundRowStatus = 'requested' | 'pending' | 'succeeded' | 'failed' | 'cancelled';

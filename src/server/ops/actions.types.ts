import type { OpsActionResult, OpsNote, OpsReason, OpsRefund, OpsResend } from '../../contract/ops-api.ts';
import type { EsimServiceAction } from '../esims/service-actions.ts';
import type { Operator } from './ops-auth.ts';

/** The back office's actions on an order (order-actions.ts): each recorded with who and why, once per idempotency key. */
export interface OrderActions {
  /** An internal note on the order. */
  note(operator: Operator, orderId: string, body: OpsNote): Promise<OpsActionResult>;
  /** The order's e-mail again, to the buyer's or the traveller's address, or (an admin only: ResendRefused) another one. */
  resendEmail(operator: Operator, orderId: string, body: OpsResend): Promise<OpsActionResult>;
  /** A paid order waiting for its eSIM tried again now. */
  retryDelivery(operator: Operator, orderId: string, body: OpsReason): Promise<OpsActionResult>;
  deliverElsewhere(operator: Operator, orderId: string, body: OpsReason): Promise<OpsActionResult>;
  /** Part or all of what is left of the payment, through the one refund command. */
  refund(operator: Operator, orderId: string, body: OpsRefund): Promise<OpsActionResult>;
  /** Suspend, unsuspend or revoke the order's eSIM at the partner. */
  esimService(operator: Operator, orderId: string, action: EsimServiceAction, body: OpsReason): Promise<OpsActionResult>;
  /** A held order approved (delivered) or rejected (refunded). */
  decideHold(operator: Operator, orderId: string, decision: 'approve' | 'reject', body: OpsReason): Promise<OpsActionResult>;
  /** The eSIM's automatic top-ups turned off (issue 49): nothing more is charged for it. */
  turnOffAutoTopUps(operator: Operator, orderId: string, body: OpsReason): Promise<OpsActionResult>;
}

/** The back office's actions on an account (account-actions.ts). */
export interface AccountActions {
  /** Disabled at Firebase, sessions revoked, open orders cancelled and their payment pages expired. */
  block(operator: Operator, uid: string, body: OpsReason): Promise<OpsActionResult>;
  /** Enabled again (the buyer signs in anew). */
  unblock(operator: Operator, uid: string, body: OpsReason): Promise<OpsActionResult>;
  /** The buyer's own deletion path: the books kept. */
  delete(operator: Operator, uid: string, body: OpsReason): Promise<OpsActionResult>;
}

import { turnOff } from '../auto-top-ups/store.ts';
import { profileOf } from '../partner/partner.ts';
import { OPS_ADMIN_SIGN_IN_MS } from '../../config/constants.ts';
import {
  OPS_ERROR_CODES,
  type OpsActionResult,
  type OpsNote,
  type OpsReason,
  type OpsRefund,
  type OpsResend,
} from '../../contract/ops-api.ts';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import type { Accounts } from '../auth.types.ts';
import type { Db } from '../db/db.types.ts';
import { changeEsimService, type EsimServiceAction } from '../esims/service-actions.ts';
import { HoldRefused, type HeldOrders } from '../fraud/holds.ts';
import type { Fulfilment } from '../fulfilment/fulfilment.types.ts';
import type { OrderStore } from '../orders/store.types.ts';
import type { EsimKey } from '../esims/store.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.types.ts';
import { RefundRefused } from '../refunds/refund-command.types.ts';
import type { ActionOutcome, ActionRecords, OpsAction } from './action-records.types.ts';
import type { OrderActions } from './actions.types.ts';
import type { Operator } from './ops-auth.ts';
import { esimOfOrder } from './order-detail.ts';
import { findOrder } from './order-search.ts';
import { queueOrder } from '../jobs/order-jobs.ts';
import type { FulfilmentOptions } from '../fulfilment/fulfilment.types.ts';
import { toAnotherPartner } from './deliver-elsewhere.ts';

export interface OrderActionDeps {
  db: Db;
  accounts: Accounts;
  store: OrderStore;
  checkouts: CheckoutExpiry;
  fulfilment: Fulfilment;
  partners: Partners;
  heldOrders: HeldOrders;
  /** The next partner for an order (the delivery's failover, partner-choice.ts); none: only one partner sells it. */
  nextPartner: FulfilmentOptions['nextPartner'];
  /** Sends the order's e-mail again (to the buyer's address or `to`), recorded against the operator's action. */
  resendOrderEmail(orderId: string, to: string, operatorActionId: number): Promise<void>;
  actionRecords: ActionRecords;
}

/**
 * The order's e-mail (its eSIM's codes) to an address that is neither the buyer's nor the eSIM's
 * traveller's, asked by someone who is not an admin, or by an admin whose sign-in is older than
 * OPS_ADMIN_SIGN_IN_MS (issue 46 item 6). Nothing was sent or recorded; the routes answer 403 `code`.
 */
export class ResendRefused extends Error {
  // A field of its own, not a parameter property: the API runs under Node's type stripping, which refuses those.
  readonly code: typeof OPS_ERROR_CODES.addressNeedsAdmin | typeof ERROR_CODES.recentLoginRequired;
  constructor(code: ResendRefused['code'], message: string) {
    super(message);
    this.name = 'ResendRefused';
    this.code = code;
  }
}

/** Whose address `to` is: the order's buyer's, its eSIM's traveller's (a top-up's: the eSIM's order's), or another's. */
async function addressOf(db: Db, orderId: string, to: string): Promise<'buyer' | 'traveller' | 'other'> {
  const [row] = await db.query<{ buyer: string | null; traveller: string | null }>(
    `SELECT lower(trim(o.email)) AS buyer, lower(trim(t.email)) AS traveller
     FROM orders o LEFT JOIN order_travellers t ON t.order_id = coalesce(o.top_up_of, o.id) WHERE o.id = $1`,
    [orderId],
  );
  const address = to.trim().toLowerCase();
  if (row?.buyer === address) return 'buyer';
  if (row?.traveller === address) return 'traveller';
  return 'other';
}

const done = (detail: string | null = null, details?: Record<string, unknown>): ActionOutcome => ({
  outcome: 'done',
  detail,
  ...(details && { details }),
});
const refused = (detail: string): ActionOutcome => ({ outcome: 'refused', detail });

/** The eSIM's automatic top-ups off, the operator named on their changes (a charge under way still ends as it would). */
async function autoTopUpsOff(db: Db, operator: Operator, orderId: string, reason: string): Promise<ActionOutcome> {
  const off = await db.transaction((tx) => turnOff(tx, orderId, `operator:${operator.email ?? operator.uid}`, reason));
  return off ? done('automatic top-ups off') : refused('Automatic top-ups of this eSIM are not on.');
}

/** The order's delivery run now, and the state it came to. */
async function deliverNow(deps: OrderActionDeps, orderId: string, what = '', details?: Record<string, unknown>): Promise<ActionOutcome> {
  await deps.fulfilment.run(orderId);
  const after = await findOrder(deps.db, orderId);
  return done(`${what}now ${after?.state ?? 'unknown'}`, details);
}

/** The eSIM's state as the partner says it now, kept (what My eSIMs and the order page show); a failed read leaves the last one. */
async function readEsimStatus({ db, partners }: Pick<OrderActionDeps, 'db' | 'partners'>, esim: EsimKey): Promise<void> {
  const esimTranNo = esim.esim_tran_no;
  try {
    const profile = await profileOf(partners.of(esim.partner), esimTranNo);
    if (profile)
      await db.query('UPDATE esims SET status = $2, updated_at = now() WHERE esim_tran_no = $1 AND partner = $3', [
        esimTranNo,
        profile.status,
        esim.partner,
      ]);
  } catch (error) {
    console.error('ops: reading the eSIM after a change failed', esimTranNo, error instanceof Error ? error.message : error);
  }
}

/**
 * Another address than the buyer's or the eSIM's traveller's is an admin's to give (issue 46 item
 * 6), signed in recently: support is refused (ResendRefused) before anything is recorded or sent.
 */
async function mayResendTo(db: Db, operator: Operator, orderId: string, to: string): Promise<void> {
  if ((await addressOf(db, orderId, to)) !== 'other') return;
  if (operator.role !== 'admin')
    throw new ResendRefused(
      OPS_ERROR_CODES.addressNeedsAdmin,
      'Support sends the e-mail only to the buyer’s or the eSIM’s traveller’s address: another address needs an admin.',
    );
  if (Date.now() - operator.signedInAt.getTime() > OPS_ADMIN_SIGN_IN_MS)
    throw new ResendRefused(ERROR_CODES.recentLoginRequired, 'Sign in again: admin actions want a sign-in within the last 12 hours.');
}

/**
 * The back office's actions on an order (issue 30 item 4). Each is recorded before it runs, with
 * the operator and their reason (action-records.ts), done once per click, and goes through the
 * same domain command a buyer's or the shop's own action uses: the refund command, the delivery's
 * run, the eSIM service change that reads the partner when an answer is lost.
 */
export function createOrderActions(deps: OrderActionDeps): OrderActions {
  const { db } = deps;
  const record =
    (operator: Operator, action: OpsAction, orderId: string, body: OpsReason, details?: Record<string, unknown>) =>
    (act: (actionId: number) => Promise<ActionOutcome>) =>
      deps.actionRecords.record({ operator, action, orderId, idempotencyKey: body.idempotencyKey, reason: body.reason, details }, act);

  return {
    note(operator: Operator, orderId: string, body: OpsNote): Promise<OpsActionResult> {
      return record(operator, 'note', orderId, { reason: body.text, idempotencyKey: body.idempotencyKey })(async () => done());
    },

    /**
     * The order's e-mail again, to the buyer's address, the eSIM's traveller's, or another one
     * (recorded on the action, with who sent it and where, and on the e-mail). Another address is
     * an admin's to give (issue 46 item 6): support is refused (ResendRefused) before anything is
     * recorded or sent.
     */
    async resendEmail(operator: Operator, orderId: string, body: OpsResend): Promise<OpsActionResult> {
      if (body.to) await mayResendTo(db, operator, orderId, body.to);
      return record(
        operator,
        'resend_email',
        orderId,
        body,
        body.to ? { to: body.to } : undefined,
      )(async (actionId) => {
        const order = await findOrder(db, orderId);
        if (order?.state !== 'delivered') return refused('Only a delivered order’s e-mail can be sent again.');
        const to = body.to ?? order.email;
        if (!to) return refused('The order has no address (the account was deleted): give one.');
        const whose = await addressOf(db, orderId, to);
        await deps.resendOrderEmail(orderId, to, actionId);
        return done(`sent to ${to} (${whose === 'other' ? 'an address an admin gave' : `the ${whose}’s`})`, { to, addressOf: whose });
      });
    },

    /** A paid order whose delivery failed a try or is stuck: tried again now, with the full number of tries. */
    retryDelivery(operator: Operator, orderId: string, body: OpsReason): Promise<OpsActionResult> {
      return record(
        operator,
        'retry_delivery',
        orderId,
        body,
      )(async () => {
        const due = await db.transaction(async (tx) => {
          const rows = await tx.query(
            `UPDATE orders SET updated_at = now() WHERE id = $1 AND state IN ('paid', 'provisioning') RETURNING id`,
            [orderId],
          );
          // Its job due now with the full number of tries (a dead one comes back to life).
          if (rows.length > 0) await queueOrder(tx, orderId, 'deliver', true);
          return rows;
        });
        if (due.length === 0)
          return refused('Only an order waiting for its eSIM (paid or being prepared) can be tried again; a failed one is being refunded.');
        return deliverNow(deps, orderId);
      });
    },

    /** A stuck paid order sent to another partner (deliver-elsewhere.ts), then delivered now. */
    deliverElsewhere(operator: Operator, orderId: string, body: OpsReason): Promise<OpsActionResult> {
      const act = async () => {
        const moved = await toAnotherPartner(deps, orderId);
        return typeof moved === 'string' ? refused(moved) : deliverNow(deps, orderId, `${moved.from} → ${moved.to}, `, moved);
      };
      return record(operator, 'deliver_elsewhere', orderId, body)(act);
    },

    /** Part or all of what is left of the payment, through the one refund command; the eSIM left working or suspended. */
    refund(operator: Operator, orderId: string, body: OpsRefund): Promise<OpsActionResult> {
      const details = { amountMinor: body.amountMinor ?? null, esim: body.esim };
      return record(
        operator,
        'refund',
        orderId,
        body,
        details,
      )(async () => {
        let status: string;
        try {
          const { refund } = await deps.fulfilment.requestRefund({
            orderId,
            ...(body.amountMinor !== undefined && { amountMinor: body.amountMinor }),
            requestedBy: 'operator',
            operatorUid: operator.uid,
            reason: 'operator',
            note: body.reason,
            // The click's key: a double click, or a retry after a lost answer, finds the same refund row.
            idempotencyKey: `ops:${body.idempotencyKey}`,
          });
          status = `${refund.amount_minor} ${refund.currency} ${refund.status}`;
        } catch (error) {
          if (error instanceof RefundRefused) return refused(error.message);
          throw error;
        }
        if (body.esim === 'suspend') {
          const esim = await esimOfOrder(db, (await findOrder(db, orderId))!);
          const changed = esim ? await changeEsimService(deps.partners.of(esim.partner), esim.esim_tran_no, 'suspend') : undefined;
          status += `; eSIM ${changed ? (changed.outcome === 'refused' ? `not suspended (${changed.detail})` : 'suspended') : 'none'}`;
        }
        return done(status);
      });
    },

    /** Suspend, unsuspend or revoke the order's eSIM at the partner; a lost answer settled by reading the eSIM. */
    esimService(operator: Operator, orderId: string, action: EsimServiceAction, body: OpsReason): Promise<OpsActionResult> {
      return record(
        operator,
        `esim_${action}`,
        orderId,
        body,
      )(async () => {
        const order = await findOrder(db, orderId);
        const esim = order && (await esimOfOrder(db, order));
        if (!esim) return refused('The order has no eSIM.');
        const result = await changeEsimService(deps.partners.of(esim.partner), esim.esim_tran_no, action);
        if (result.outcome === 'refused') return refused(`${result.reason}: ${result.detail}`);
        await readEsimStatus(deps, esim);
        return result.outcome === 'already' ? { outcome: 'already', detail: 'It was so already.' } : done();
      });
    },

    /** An eSIM's automatic top-ups turned off (issue 49): nothing more is charged. */
    turnOffAutoTopUps: (operator: Operator, orderId: string, body: OpsReason) =>
      record(operator, 'auto_top_up_off', orderId, body)(() => autoTopUpsOff(db, operator, orderId, body.reason)),

    /** A held order: approved (delivered now) or rejected (refunded in full). */
    decideHold(operator: Operator, orderId: string, decision: 'approve' | 'reject', body: OpsReason): Promise<OpsActionResult> {
      return record(
        operator,
        decision,
        orderId,
        body,
      )(async () => {
        try {
          const by = { uid: operator.uid, reason: body.reason };
          const taken =
            decision === 'approve'
              ? await deps.heldOrders.approveHeldOrder(orderId, by)
              : await deps.heldOrders.rejectHeldOrder(orderId, by);
          return taken === 'already' ? { outcome: 'already', detail: null } : done();
        } catch (error) {
          if (error instanceof HoldRefused) return refused(error.message);
          throw error;
        }
      });
    },
  };
}

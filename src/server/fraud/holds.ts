import Stripe from 'stripe';
import type { Db, Queryable } from '../db/db.types.ts';
import { readChargeFacts, recordChargeFacts } from '../payments/charge-facts.ts';
import { queueOrder } from '../jobs/order-jobs.ts';

/**
 * Held orders (issue 30 item 7): an order whose charge Stripe Radar rates `highest` risk is held
 * before delivery, no partner call, until an admin approves it (then it is delivered) or rejects
 * it (then its payment is refunded in full, reason 'fraud'). The hold is a row of its own, written
 * only here (order_holds, migration 0040; no row: never held), and every change of it an order
 * event, so the timeline shows it; the order's state stays 'paid' meanwhile (the buyer's page says
 * the eSIM is on its way). A held order is not due (fulfilment/queue.ts, due), so it never holds up
 * the reconcile job's other orders; the audit names one held for more than a day.
 */
export type Hold = 'held' | 'approved' | 'rejected';

/** Who decided, and why: an operator's uid and their words. */
export interface HoldDecider {
  uid: string;
  reason: string;
}

/** A decision that cannot be taken: no such order, not held, or decided the other way already. */
export class HoldRefused extends Error {
  // A field, not a parameter property: Node's type stripping (npm start) refuses those.
  readonly code: 'order_not_found' | 'not_held' | 'decided_otherwise';
  constructor(code: 'order_not_found' | 'not_held' | 'decided_otherwise', message: string) {
    super(message);
    this.code = code;
    this.name = 'HoldRefused';
  }
}

/**
 * Before a paid order is delivered: its charge's facts are read from Stripe if the shop has not read
 * them yet (and kept: payments/charge-facts.ts), and a `highest` risk charge holds the order.
 * Answers 'held' while the order waits for an admin (or was rejected and waits for its refund),
 * else 'deliver'. `write` runs in the caller's fenced transaction (the fulfilment's lease).
 *
 * A charge that cannot be read now (Stripe unreachable) never delays a paid order: it is delivered
 * unscreened, logged, and the reconcile job reads the charge later (fillChargeFacts), so its
 * signals still show in the back office. Holding instead would make every Stripe outage hold every
 * order, and most orders are not fraud.
 */
export async function screenBeforeDelivery(
  deps: { db: Db; stripe: Stripe },
  orderId: string,
  write: <T>(work: (tx: Queryable) => Promise<T>) => Promise<T>,
): Promise<'deliver' | 'held'> {
  const [row] = await deps.db.query<{
    hold: Hold | null;
    payment_id: number | null;
    payment_intent_id: string | null;
    charge_facts_at: Date | null;
    risk_level: string | null;
    risk_score: number | null;
  }>(
    `SELECT h.hold, p.id AS payment_id, p.payment_intent_id, p.charge_facts_at, p.risk_level, p.risk_score
     FROM orders o
     LEFT JOIN order_holds h ON h.order_id = o.id
     LEFT JOIN LATERAL (SELECT * FROM payments WHERE order_id = o.id AND status = 'paid' ORDER BY id DESC LIMIT 1) p ON true
     WHERE o.id = $1`,
    [orderId],
  );
  if (!row) return 'deliver';
  if (row.hold === 'approved') return 'deliver';
  // Rejected but still paid: its refund was not recorded (rejectHeldOrder again records it); never delivered.
  if (row.hold === 'held' || row.hold === 'rejected') return 'held';
  let riskLevel = row.risk_level;
  let riskScore = row.risk_score;
  if (!row.charge_facts_at && row.payment_id !== null && row.payment_intent_id) {
    try {
      const facts = await readChargeFacts(deps.stripe, row.payment_intent_id);
      await write((tx) => recordChargeFacts(tx, Number(row.payment_id), facts));
      [riskLevel, riskScore] = [facts?.riskLevel ?? null, facts?.riskScore ?? null];
    } catch (error) {
      if (!isStripeError(error)) throw error;
      console.error('fraud: charge not read, delivering unscreened', orderId, error.message);
    }
  }
  if (riskLevel !== 'highest') return 'deliver';
  const held = await write(async (tx) => {
    const [changed] = await tx.query<{ id: string }>(
      `INSERT INTO order_holds (order_id, hold, held_at) SELECT id, 'held', now() FROM orders WHERE id = $1 AND state = 'paid'
       ON CONFLICT (order_id) DO NOTHING RETURNING order_id AS id`,
      [orderId],
    );
    if (changed) await event(tx, orderId, `held: Stripe Radar risk_level highest${riskScore === null ? '' : ` (risk_score ${riskScore})`}`);
    return !!changed;
  });
  return held ? 'held' : 'deliver';
}

/** An error of Stripe's (an answer, or none): anything else (the database, a lost lease) is the caller's. */
const isStripeError = (error: unknown): error is Error => error instanceof Stripe.errors.StripeError;

/** A change of the hold, on the order's timeline (its state unchanged: 'paid'). */
const event = (tx: Queryable, orderId: string, cause: string) =>
  tx.query(`INSERT INTO order_events (order_id, from_state, to_state, cause) VALUES ($1, 'paid', 'paid', $2)`, [orderId, cause]);

/**
 * The admin's decisions on a held order, as domain commands (the back office's routes call them
 * and record the operator's action). Each is idempotent: the same decision again answers
 * 'already'; the other decision after one was taken is refused. `run` is the fulfilment's (it
 * delivers an approved order); `refunds` the one refund command (refunds/refund-command.ts).
 */
export interface HeldOrders {
  /** Releases a held order to delivery, and delivers it now. */
  approveHeldOrder(orderId: string, by: HoldDecider): Promise<'approved' | 'already'>;
  /**
   * Refuses a held order: its payment is refunded in full through the refund command (the order
   * goes to refund_requested, reason 'fraud', and ends refunded with the refund e-mail). Asked
   * again after a failure in between, the refund is recorded then (the same idempotency key:
   * never two refunds).
   */
  rejectHeldOrder(orderId: string, by: HoldDecider): Promise<'rejected' | 'already'>;
  /** Every order held now, the longest waiting first. */
  heldOrders(limit: number): Promise<{ orderId: string; heldAt: Date }[]>;
}

export function createHeldOrders(deps: {
  db: Db;
  run: (orderId: string) => Promise<void>;
  refunds: {
    requestRefund(request: {
      orderId: string;
      requestedBy: 'operator';
      operatorUid: string;
      reason: 'fraud';
      note: string;
      idempotencyKey: string;
    }): Promise<unknown>;
  };
}): HeldOrders {
  const { db } = deps;

  /**
   * Takes the decision once: answers 'decided' (this call took it) or 'already' (the same one was
   * taken before), with who took it and why (a second click's words do not replace the first's).
   */
  async function decide(
    orderId: string,
    to: 'approved' | 'rejected',
    by: HoldDecider,
  ): Promise<{ taken: 'decided' | 'already'; by: HoldDecider }> {
    return db.transaction(async (tx) => {
      const [order] = await tx.query<{ hold: Hold | null; hold_decided_by: string | null; hold_reason: string | null }>(
        `SELECT h.hold, h.decided_by AS hold_decided_by, h.reason AS hold_reason
         FROM orders o LEFT JOIN order_holds h ON h.order_id = o.id WHERE o.id = $1 FOR UPDATE OF o`,
        [orderId],
      );
      if (!order) throw new HoldRefused('order_not_found', `no order ${orderId}`);
      if (order.hold === to)
        return { taken: 'already', by: { uid: order.hold_decided_by ?? by.uid, reason: order.hold_reason ?? by.reason } };
      if (order.hold !== 'held') {
        throw order.hold === null
          ? new HoldRefused('not_held', `order ${orderId} is not held`)
          : new HoldRefused('decided_otherwise', `order ${orderId} was ${order.hold} already`);
      }
      await tx.query('UPDATE order_holds SET hold = $2, decided_by = $3, decided_at = now(), reason = $4 WHERE order_id = $1', [
        orderId,
        to,
        by.uid,
        by.reason,
      ]);
      await event(tx, orderId, `hold_${to} by ${by.uid}: ${by.reason}`);
      // Due at once: the order's run delivers it, or (rejected) carries its refund.
      await queueOrder(tx, orderId, 'deliver', true);
      return { taken: 'decided', by };
    });
  }

  return {
    async approveHeldOrder(orderId, by) {
      const { taken } = await decide(orderId, 'approved', by);
      await deps.run(orderId);
      return taken === 'decided' ? 'approved' : 'already';
    },

    async rejectHeldOrder(orderId, by) {
      const decided = await decide(orderId, 'rejected', by);
      await deps.refunds.requestRefund({
        orderId,
        requestedBy: 'operator',
        operatorUid: decided.by.uid,
        reason: 'fraud',
        note: decided.by.reason,
        idempotencyKey: `hold-rejected:${orderId}`,
      });
      return decided.taken === 'decided' ? 'rejected' : 'already';
    },

    async heldOrders(limit) {
      const rows = await db.query<{ id: string; held_at: Date }>(
        `SELECT o.id, h.held_at FROM order_holds h JOIN orders o ON o.id = h.order_id
         WHERE h.hold = 'held' AND o.state = 'paid' ORDER BY h.held_at LIMIT $1`,
        [limit],
      );
      return rows.map((r) => ({ orderId: r.id, heldAt: r.held_at }));
    },
  };
}

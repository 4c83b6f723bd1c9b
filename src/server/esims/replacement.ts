import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db.types.ts';
import type { BuyerActionDeps, BuyerActionRefusal } from './buyer-actions.types.ts';
import type { OrderRunner } from './services.types.ts';
import { decideOutcome } from '../orders/purchase-outcome.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { isUuid } from '../uuid.ts';
import type { OwnedEsim } from './store.types.ts';
import { readAtPartner } from './partner-read.ts';
import { queueOrder } from '../jobs/order-jobs.ts';
import { esimStatus, replacementCase } from './view.ts';

/**
 * An eSIM replaced at our cost in one step (issue 32 item 3): one never downloaded (the QR code
 * that will not install), or deleted from the phone before it carried any data, gets a new eSIM of
 * the same plan. The replacement is an order of its own with nothing paid, naming the order it
 * replaces (migration 0027), delivered as any other; its run first cancels the old eSIM at the
 * partner when it was never downloaded (fulfilment.ts). If it cannot be delivered, the order it
 * replaces is refunded instead.
 */

export interface ReplaceEsimDeps extends BuyerActionDeps {
  db: Db;
  fulfilment: Pick<OrderRunner, 'run'>;
}

/** How a buyer's replacement ended: POST /esims/{id}/replace answers each with its own status. */
export type ReplaceEsimResult =
  /** The replacement (new or, asked again, the same one), as the buyer's eSIM. */
  | { outcome: 'replaced'; replacement: OwnedEsim }
  /** Installed and kept, used, expired, older than the refund window, or not delivered. */
  | { outcome: 'not_replaceable' }
  | BuyerActionRefusal;

/** The order that replaced this one, if any. */
async function replacementOf(db: Db, orderId: string): Promise<string | undefined> {
  const [row] = await db.query<{ id: string }>(`SELECT order_id AS id FROM order_links WHERE of_order_id = $1 AND link = 'replacement'`, [
    orderId,
  ]);
  return row?.id;
}

/** Refused by the purchase's one outcome: rolls back the replacement's rows. */
class NotReplaceable extends Error {}

/**
 * Opens the replacement order, paid by nobody (amount 0), with the old order's plan, partner package
 * and buyer; at most one per eSIM (a double click finds the same). The purchase's outcome is decided
 * first, in the same transaction under the old order's lock (orders/purchase-outcome.ts): one already
 * refunded or exchanged (or on its way) is not replaced. Both orders' timelines say why. Answers the
 * replacement's id, or undefined when it is refused.
 */
async function openReplacement(db: Db, old: OrderRow, uid: string, why: string): Promise<string | undefined> {
  const id = randomUUID();
  return db
    .transaction(async (tx) => {
      const decided = await decideOutcome(tx, { orderId: old.id, outcome: 'replaced', askedBy: 'buyer', byOrderId: id, cause: why });
      if (!decided.decided) throw new NotReplaceable();
      const [created] = await tx.query<{ id: string }>(
        `WITH created AS (
           INSERT INTO orders (id, uid, email, email_verified, state, plan_id, destination, plan, amount_minor, currency, lang, kind)
           SELECT $2, uid, email, email_verified, 'paid', plan_id, destination, plan, 0, currency, lang, 'esim'
           FROM orders o WHERE id = $1 AND uid = $4 AND state = 'delivered'
             -- Neither a replacement itself nor replaced already (order_links, migration 0042).
             AND NOT EXISTS (SELECT 1 FROM order_links x WHERE x.link = 'replacement' AND (x.order_id = o.id OR x.of_order_id = o.id))
           RETURNING id
         ), replaced AS (
           INSERT INTO order_links (order_id, link, of_order_id) SELECT id, 'replacement', $1 FROM created
         ), sourcing AS (
           -- The same package at the same partner, at our cost.
           INSERT INTO order_sourcing (order_id, partner, partner_code, wholesale_usd_e4)
           SELECT created.id, s.partner, s.partner_code, s.wholesale_usd_e4 FROM created JOIN order_sourcing s ON s.order_id = $1
         ), consent AS (
           -- The consents the buyer gave for the eSIM it replaces, and its trip's start.
           INSERT INTO order_consents (order_id, terms_version, terms_accepted_at, immediate_start_requested_at)
           SELECT created.id, c.terms_version, c.terms_accepted_at, c.immediate_start_requested_at
           FROM created JOIN order_consents c ON c.order_id = $1
         ), trip AS (
           INSERT INTO order_travellers (order_id, trip_starts_on)
           SELECT created.id, t.trip_starts_on FROM created JOIN order_travellers t ON t.order_id = $1 WHERE t.trip_starts_on IS NOT NULL
         ), events AS (
           INSERT INTO order_events (order_id, from_state, to_state, cause)
           SELECT id, NULL, 'paid', 'replacement at our cost of ' || $1 || ': ' || $3 FROM created
           UNION ALL
           SELECT $1, 'delivered', 'delivered', 'replaced at our cost by ' || id || ': ' || $3 FROM created
         )
         SELECT id FROM created`,
        [old.id, id, why, uid],
      );
      if (!created) throw new NotReplaceable();
      // Paid (by us): its delivery is queued with it.
      await queueOrder(tx, created.id, 'deliver');
      return created.id;
    })
    .catch(async (error: unknown) => {
      if (!(error instanceof NotReplaceable)) throw error;
      // Asked again (a double click, another tab) while this one was decided: the same replacement.
      return replacementOf(db, old.id);
    });
}

export async function replaceEsim(deps: ReplaceEsimDeps, uid: string, esimId: string): Promise<ReplaceEsimResult> {
  const { db, esims, fulfilment, limits } = deps;
  // The refunds' few a minute per user: each one that gets past the local checks costs the partner's budget.
  const wait = await limits.take('refunds', uid);
  if (wait !== undefined) return { outcome: 'too_many_attempts', retryAfterSeconds: wait };
  const found = isUuid(esimId) ? await esims.ownedOne(uid, esimId) : undefined;
  if (!found) return { outcome: 'no_such_esim' };
  // Asked again (a double click, another tab): the same replacement.
  const earlier = await replacementOf(db, found.order.id);
  if (earlier) return { outcome: 'replaced', replacement: (await esims.ownedOne(uid, earlier))! };
  const caseOf = ({ order, esim }: OwnedEsim, now = new Date()) => replacementCase(esimStatus(order, esim, now), order, esim, now);
  if (!caseOf(found)) return { outcome: 'not_replaceable' };
  // What the partner says now decides (installed a minute ago, or data used since): one read.
  const now = await readAtPartner(deps, uid, found);
  if (!now) return { outcome: 'partner_unavailable' };
  const why = now.order.state === 'delivered' ? caseOf(now) : undefined;
  if (!why) return { outcome: 'not_replaceable' };
  const id = await openReplacement(db, now.order, uid, why);
  if (!id) return { outcome: 'not_replaceable' };
  // Its delivery starts now (run never rejects; the reconcile job carries what is left).
  void fulfilment.run(id);
  return { outcome: 'replaced', replacement: (await esims.ownedOne(uid, id))! };
}

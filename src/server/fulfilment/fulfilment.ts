import { DELIVERY_PROMISE_MS } from '../../config/constants.ts';
import { setRefundReason } from '../refunds/refund-reasons.ts';
import { createEsimStore } from '../esims/store.ts';
import { createOrderStore } from '../orders/store.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { createRefundCommand } from '../refunds/refund-command.ts';
import * as refunds from '../refunds/store.ts';
import { createFulfilmentEmails } from './emails.ts';
import type { Fulfilment, FulfilmentOptions } from './fulfilment.types.ts';
import { claimDueOrder, claimOrder, LeaseLost } from './lease.ts';
import type { Lease } from './lease.types.ts';
import { cancelAtPartner } from './steps/cancel-at-partner.ts';
import { charge, refundOrder } from './steps/charge.ts';
import { deliverAndEmail } from './steps/deliver-and-email.ts';
import { refundEmail } from './steps/refund-email.ts';
import { fresh, type Outcome, type StepContext } from './steps/step.ts';
import { failedTry } from './failure.ts';
import { workflowOf } from './steps/workflows.ts';

/**
 * Delivery (DESIGN 6): every paid order ends delivered or refunded. The order's job (jobs/queue.ts,
 * queued with the move that makes it due) is claimed by one worker, whose run moves the order as far
 * as it can now through its workflow's steps (steps/workflows.ts): paid → provisioning → the
 * partner's order (our id as its transactionId, so a retry never buys twice) → its profile →
 * delivered → the order e-mail, once; or, when the tries run out, fulfilment_failed → the steps
 * compensated (what the partner allocated cancelled, the charge refunded) → refunded → the refund
 * e-mail. What fails is tried again by the job with backoff. The payment webhook, the partner's
 * webhook, the refund button and the reconcile job all call the same `run`.
 */

/** About two hours of tries before a buyer gets their money back. */
export const RETRY_DELAYS_MS = [10_000, 30_000, 60_000, 2 * 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000];

export function createFulfilment(options: FulfilmentOptions): Fulfilment {
  const { db } = options;
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const allocationPollMs = options.allocationPollMs ?? 3_000;
  // Whoever works on an order holds its job this long unless renewed (a crashed process's hold runs out).
  const leaseMs = options.leaseMs ?? 60_000;
  const policy = { delays, deliveryPromiseMs: options.deliveryPromiseMs ?? DELIVERY_PROMISE_MS };
  const running = new Map<string, Promise<void>>();
  const again = new Set<string>();
  const ctx: StepContext = {
    db,
    partners: options.partners,
    nextPartner: options.nextPartner,
    stripe: options.stripe,
    orders: createOrderStore(db),
    esims: createEsimStore(db),
    emails: createFulfilmentEmails({ ...options, esims: createEsimStore(db) }),
    delays,
    // The partner allocates within 30 s (DESIGN 6); an order still allocating after 10 minutes counts its polls as failed tries.
    allocationLimitMs: options.allocationLimitMs ?? 10 * 60_000,
    // A pending refund is read at Stripe again this often, in case its webhook is lost.
    refundPollMs: options.refundPollMs ?? 5 * 60_000,
    onDelivered: options.onDelivered,
    run: (id) => run(id),
  };

  /** One try: the order as far as it goes, then its other refunds (an operator's, part of the payment) at Stripe. */
  async function step(lease: Lease): Promise<Outcome> {
    const outcome = await moveOrder(lease);
    const aside = await charge.run(ctx, lease, await fresh(ctx, lease.order.id));
    if (aside === undefined) return outcome;
    return { retryInMs: outcome === 'done' ? aside : Math.min(outcome.retryInMs, aside) };
  }

  /** The order's state machine (DESIGN 6): each state runs its workflow's step. */
  async function moveOrder(lease: Lease): Promise<Outcome> {
    const id = lease.order.id;
    const move = (to: OrderRow['state'], cause: string) => lease.write((tx) => ctx.orders.move(tx, id, to, cause));
    for (;;) {
      const order = await fresh(ctx, id);
      const flow = workflowOf(order);
      switch (order.state) {
        case 'paid':
          // A buyer who deleted their account can no longer see an eSIM: give the money back.
          if (order.uid === null) {
            await lease.write((tx) => setRefundReason(tx, id, 'account_deleted'));
            await move('fulfilment_failed', 'account_deleted');
          } else if ((await flow.before(ctx, lease, order)) === 'held') return 'done';
          else await move('provisioning', 'fulfilment_started');
          continue;
        case 'provisioning':
          if (!(await flow.atPartner(ctx, lease, order))) return { retryInMs: allocationPollMs };
          continue;
        case 'delivered':
          if ((await deliverAndEmail.run(ctx, lease, order)) === 'refund') continue;
          return 'done';
        case 'refund_requested': {
          // The buyer's refund of a delivered eSIM: cancelled at the partner first. Installed
          // meanwhile, it is kept, delivered again, and its e-mail still goes if it had not.
          if (await cancelAtPartner.run(ctx, lease, order)) continue;
          const refunded = await refundOrder(ctx, lease, order, order.refund_reason ?? 'requested');
          if (refunded !== 'refunded') return refunded;
          continue;
        }
        case 'fulfilment_failed': {
          // Released at the partner once, before the first refund is asked (a pending or failed one does not release again).
          const compensated = await flow.compensate(ctx, lease, order, !(await refunds.anyAsked(db, id)));
          if (compensated !== 'refunded' && compensated !== 'moved') return compensated;
          continue;
        }
        case 'refunded':
          return (await refundEmail.run(ctx, lease, order)) === 'wait' ? { retryInMs: allocationPollMs } : 'done';
        default:
          return 'done';
      }
    }
  }

  async function runOnce(id: string, claimed?: Lease): Promise<void> {
    const lease = claimed ?? (await claimOrder(db, id, leaseMs));
    if (!lease) return;
    let outcome: Outcome;
    try {
      outcome = await step(lease);
    } catch (error) {
      if (error instanceof LeaseLost) {
        console.error('fulfilment: another worker took over', id);
        return lease.release({ kind: 'unchanged' });
      }
      // Given up: the refund follows at once (and is itself retried if it fails).
      if (await failedTry(ctx, policy, lease, error)) return runOnce(id);
      return;
    }
    await lease.release(outcome === 'done' ? { kind: 'done' } : { kind: 'look_again', inMs: outcome.retryInMs });
  }

  /**
   * Moves an order as far as it can now. Calls for the same order while one runs are folded
   * into one more run after it (a webhook that arrives mid-run is not lost).
   */
  function run(id: string, claimed?: Lease): Promise<void> {
    const current = running.get(id);
    if (current) {
      again.add(id);
      if (claimed) void claimed.release({ kind: 'unchanged' });
      return current;
    }
    const work = (async () => {
      try {
        do {
          again.delete(id);
          await runOnce(id, claimed);
          claimed = undefined;
        } while (again.has(id));
      } catch (error) {
        // The database itself failed: the order's job stays, and the reconcile job tries it again.
        console.error('fulfilment: run failed', id, error instanceof Error ? error.message : error);
      } finally {
        running.delete(id);
      }
    })();
    running.set(id, work);
    return work;
  }

  /** The reconcile job's part: the order jobs that are due, one at a time (the partner allows 8 requests a second). */
  async function runDue(limit = 50): Promise<number> {
    let count = 0;
    for (let lease = await claimDueOrder(db, leaseMs); lease; lease = count < limit ? await claimDueOrder(db, leaseMs) : undefined) {
      count++;
      await run(lease.order.id, lease);
    }
    return count;
  }

  /** The one refund command (refunds/refund-command.ts): a row, then this order's run asks Stripe. */
  const { requestRefund } = createRefundCommand({ db, run });

  /** Waits for the runs under way (a server stopping, a test). */
  const settled = () => Promise.allSettled([...running.values()]).then(() => undefined);

  return { run, runDue, requestRefund, settled };
}

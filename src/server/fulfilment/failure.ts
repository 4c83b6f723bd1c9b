import { pauseSales } from '../orders/sales-pause.ts';
import { setRefundReason } from '../refunds/refund-reasons.ts';
import * as refunds from '../refunds/store.ts';
import type { Lease } from './lease.types.ts';
import * as queue from './queue.ts';
import { fresh, refused, type StepContext } from './steps/step.ts';

/** The runner's policy for a failed try: the waits between tries (their number: a delivery's tries) and the promised time. */
export interface FailurePolicy {
  delays: readonly number[];
  deliveryPromiseMs: number;
}

/**
 * A failure the same call cannot fix by being tried again: the order goes straight to its refund.
 * A top-up the eSIM's partner does not allow (its state forbids it) is one, whatever the partner calls the call.
 */
const hopeless = (error: unknown, order: { kind: string }) =>
  refused(error) &&
  (error.kind === 'not_found' ||
    error.kind === 'price_changed' ||
    error.kind === 'insufficient_balance' ||
    (order.kind !== 'esim' && error.kind === 'not_allowed'));

/** How long until the order's delivery promise runs out (negative once it has). */
async function deliveryPromiseLeft(ctx: StepContext, policy: FailurePolicy, id: string): Promise<number> {
  const payment = await refunds.paidPayment(ctx.db, id);
  return payment ? payment.paid_at.getTime() + policy.deliveryPromiseMs - Date.now() : Infinity;
}

/**
 * A failed try: counted on the order's job and tried again after its backoff; a delivery that ran
 * out of tries (or of its promised time, or hopeless) goes to fulfilment_failed, whose
 * compensation refunds it at once. Answers true when the order was given up so.
 */
export async function failedTry(ctx: StepContext, policy: FailurePolicy, lease: Lease, error: unknown): Promise<boolean> {
  const { delays } = policy;
  const id = lease.order.id;
  // The message names the call and the partner's code, never an activation code (PartnerError, MailError).
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const attempts = lease.job.attempts + 1;
  const { state, partner, wholesale_usd_e4 } = await fresh(ctx, id);
  const delivering = state === 'paid' || state === 'provisioning';
  // The promised time counts from the payment: a try left for after it is made at it instead.
  const promiseLeftMs = delivering ? await deliveryPromiseLeft(ctx, policy, id) : Infinity;
  if (!delivering || (attempts < delays.length && !hopeless(error, lease.order) && promiseLeftMs > 0)) {
    console.error('fulfilment: will try again', id, `try ${attempts}`, text);
    // The wait for this many failures (computed in SQL), at most what is left of the promise.
    await lease.release({
      kind: 'retry',
      error: text,
      delaysMs: delays,
      capMs: Number.isFinite(promiseLeftMs) ? promiseLeftMs : undefined,
    });
    return false;
  }
  console.error('fulfilment: giving up, refunding', id, text);
  // Our prepaid balance at the partner ran dry (and no other partner could take it): this buyer is
  // refunded at once, and nothing goes to that partner until it is topped up.
  const outOfBalance = refused(error) && error.kind === 'insufficient_balance';
  const why = outOfBalance
    ? 'partner_out_of_balance'
    : `${promiseLeftMs <= 0 ? 'delivery_promise_missed' : 'retries_exhausted'} after ${attempts} tries`;
  const moved = await lease
    .write(async (tx) => {
      await queue.giveUp(tx, id, text);
      if (outOfBalance) {
        await setRefundReason(tx, id, 'out_of_balance');
        await pauseSales(tx, partner, wholesale_usd_e4);
      }
      // The last error goes with the move (its job ends with the refund): the order's timeline keeps it.
      return ctx.orders.move(tx, id, 'fulfilment_failed', `${why}: ${text}`);
    })
    .catch(() => false);
  await lease.release({ kind: 'unchanged' });
  return moved;
}

import { isTopUpOrder } from '../../../contract/order-kinds.ts';
import type { Lease } from '../lease.types.ts';
import { charge, refundOrder } from './charge.ts';
import { deliverAndEmail } from './deliver-and-email.ts';
import { orderAtPartner } from './order-at-partner.ts';
import { readProfile } from './read-profile.ts';
import { releaseReplaced } from './release-replaced.ts';
import { replacementFailed } from './replacement-failed.ts';
import { screen } from './screen.ts';
import { fresh, type OrderInWork, type Outcome, type Step, type StepContext } from './step.ts';
import { topUp } from './top-up.ts';

/**
 * The delivery workflows (issue 47 item 2), each of the same steps (steps/*.ts), run a step at a
 * time by the fulfilment as the order's state says (fulfilment.ts), and compensated in reverse when
 * the delivery fails:
 *
 * - a sale: screen the charge → order at the partner → read the profile → deliver and e-mail;
 *   compensated by cancelling what the partner allocated, then refunding the charge;
 * - an exchange: a sale whose read of the profile also refunds the eSIM it exchanges (esims/exchange.ts);
 * - a replacement at our cost: release the replaced eSIM → order at the partner → read the profile →
 *   deliver and e-mail; compensated by cancelling what the partner allocated, then refunding the
 *   order it replaces instead (nothing was paid for this one);
 * - a top-up: screen the charge → top up at the partner → deliver and e-mail; compensated by its refund.
 */
export interface Workflow {
  name: 'sale' | 'exchange' | 'replacement' | 'top-up';
  /** The steps in order, as the back office and the docs name them. */
  steps: readonly Step<unknown>[];
  /** Before the partner is called; 'held': an admin decides first (the run stops here). */
  before(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<'held' | 'go'>;
  /** The partner's part: true once the order is delivered, false to look again soon. */
  atPartner(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<boolean>;
  /** The delivery failed for good (fulfilment_failed): its steps undone in reverse; 'moved' when it ended otherwise. */
  compensate(ctx: StepContext, lease: Lease, order: OrderInWork, firstTime: boolean): Promise<Outcome | 'refunded' | 'moved'>;
}

const screened = async (ctx: StepContext, lease: Lease, order: OrderInWork) =>
  (await screen.run(ctx, lease, order)) === 'held' ? 'held' : 'go';

/**
 * The partner's order, then its profile: on a later run when the partner allocates and says so,
 * at once from a partner that allocates without a word (EsimPartner.notifiesAllocation), from the
 * order's answer when it names the profile (eSIM Go's).
 */
async function orderAndRead(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<boolean> {
  if (!order.partner_order_no) {
    const answered = await orderAtPartner.run(ctx, lease, order);
    const ordered = await fresh(ctx, order.id);
    if (!ordered.partner_order_no || ctx.partners.of(ordered.partner).notifiesAllocation) return false;
    return readProfile.run(ctx, lease, ordered, answered?.profiles);
  }
  return readProfile.run(ctx, lease, order);
}

/** A paid delivery's compensation: what the partner allocated for it cancelled (once, before the first refund is asked), then the charge refunded. */
async function refundCharge(ctx: StepContext, lease: Lease, order: OrderInWork, firstTime: boolean) {
  if (firstTime) await orderAtPartner.compensate!(ctx, lease, order);
  return refundOrder(ctx, lease, order, order.refund_reason ?? 'not_delivered');
}

const sale: Workflow = {
  name: 'sale',
  steps: [screen, orderAtPartner, readProfile, deliverAndEmail, charge],
  before: screened,
  atPartner: orderAndRead,
  compensate: refundCharge,
};

const workflows: Record<Workflow['name'], Workflow> = {
  sale,
  exchange: { ...sale, name: 'exchange' },
  replacement: {
    name: 'replacement',
    steps: [releaseReplaced, orderAtPartner, readProfile, deliverAndEmail],
    before: async (ctx, lease, order) => (await releaseReplaced.run(ctx, lease, order), 'go'),
    atPartner: orderAndRead,
    async compensate(ctx, lease, order, firstTime) {
      if (firstTime) await orderAtPartner.compensate!(ctx, lease, order);
      await replacementFailed(ctx, lease, order);
      return 'moved';
    },
  },
  'top-up': {
    name: 'top-up',
    steps: [screen, topUp, deliverAndEmail, charge],
    before: screened,
    atPartner: (ctx, lease, order) => topUp.run(ctx, lease, order),
    compensate: (ctx, lease, order) => refundOrder(ctx, lease, order, order.refund_reason ?? 'not_delivered'),
  },
};

/** The workflow an order is delivered by. */
export function workflowOf(order: OrderInWork): Workflow {
  if (isTopUpOrder(order)) return workflows['top-up'];
  if (order.replaces) return workflows.replacement;
  return order.exchange_of ? workflows.exchange : workflows.sale;
}

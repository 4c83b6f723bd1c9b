import type { Lease } from '../lease.types.ts';
import { cancelAtPartner } from './cancel-at-partner.ts';
import { fresh, type OrderInWork, type Step, type StepContext } from './step.ts';

/**
 * A replacement's first step: the eSIM it replaces, when never downloaded, is cancelled at the
 * partner (which refunds us for it), settled by reading as every cancel is. Installed meanwhile, it
 * is the buyer's still, and the replacement goes ahead at our cost all the same.
 */
async function run(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<void> {
  const old = await fresh(ctx, order.replaces!);
  const esim = await ctx.esims.ofOrder(ctx.db, old.id);
  if (!esim || esim.status !== 'ready' || esim.installed) return;
  if (await cancelAtPartner.run(ctx, lease, old))
    await lease.write((tx) =>
      tx.query('INSERT INTO order_events (order_id, from_state, to_state, cause) VALUES ($1, $2, $2, $3)', [
        order.id,
        'paid',
        `replaced eSIM ${esim.esim_tran_no} was installed meanwhile: not cancelled`,
      ]),
    );
}

export const releaseReplaced: Step = { name: 'release the replaced eSIM', run };

import { screenBeforeDelivery } from '../../fraud/holds.ts';
import type { OrderRow } from '../../orders/store.types.ts';
import type { Lease } from '../lease.types.ts';
import type { Step, StepContext } from './step.ts';

/**
 * Before the partner is called: a charge Stripe Radar rates highest risk waits for an admin, with
 * no partner call (fraud/holds.ts). Answers 'held' or 'deliver'. Nothing to compensate.
 */
const run = (ctx: StepContext, lease: Lease, order: OrderRow) =>
  screenBeforeDelivery({ db: ctx.db, stripe: ctx.stripe }, order.id, (work) => lease.write(work));

export const screen: Step<'held' | 'deliver'> = { name: 'screen the charge', run };

import { profileOf } from '../partner/partner.ts';
import type { OpsOrder } from '../../contract/ops-api.ts';
import type { Db } from '../db/db.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import { esimOfOrder } from './order-detail.ts';
import { findOrder } from './order-search.ts';

const OPERATOR = { priority: 'operator' } as const;
type OpsEsim = NonNullable<OpsOrder['esim']>;

/**
 * The order's eSIM read again from the partner on an operator's request (issue 30 item 3): its
 * state, install step, validity and data use, at the lowest priority of the shared partner budget
 * (an operator never holds up a buyer). Shown, not stored: the shop's own record of the eSIM is
 * kept by the paths that act on it (delivery, usage and alerts, the partner's notifications).
 * 'unavailable' when the partner does not answer now.
 */
export async function readEsimForOperator(
  db: Db,
  partners: Partners,
  orderId: string,
): Promise<OpsEsim | 'no_esim' | 'no_order' | 'unavailable'> {
  const order = await findOrder(db, orderId);
  if (!order) return 'no_order';
  const esim = await esimOfOrder(db, order);
  if (!esim) return 'no_esim';
  const partner = partners.of(esim.partner);
  try {
    const [profile, [usage]] = await Promise.all([
      profileOf(partner, esim.esim_tran_no, OPERATOR),
      partner.usage([esim.esim_tran_no], OPERATOR),
    ]);
    if (!profile) return 'unavailable';
    return {
      iccid: profile.iccid,
      esimTranNo: profile.esimTranNo,
      installStep: profile.installStep,
      status: profile.status,
      usedBytes: usage?.usedBytes ?? profile.usedBytes,
      totalBytes: usage?.totalBytes ?? profile.totalBytes,
      expiresAt: profile.expiresAt?.toISOString() ?? null,
      readAt: new Date().toISOString(),
    };
  } catch (error) {
    console.error('ops: reading the eSIM from the partner failed', esim.esim_tran_no, error instanceof Error ? error.message : error);
    return 'unavailable';
  }
}

import { forAWaitingBuyer } from '../partner/partner.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import type { EsimStore, OwnedEsim } from './store.types.ts';

/**
 * The owner's eSIM as the partner has it now, before a step the partner's state decides (a refund,
 * a replacement: installed or used a minute ago changes the answer): one esim/query, stored, then
 * read again. Undefined when the partner could not say: nothing is done, the buyer can try again.
 */
export async function readAtPartner(
  deps: { esims: Pick<EsimStore, 'ownedOne' | 'refresh'>; partner: Pick<EsimPartner, 'queryProfiles'> },
  uid: string,
  found: OwnedEsim,
): Promise<OwnedEsim | undefined> {
  try {
    const answer = await deps.partner.queryProfiles({ esimTranNo: found.esim!.esim_tran_no }, forAWaitingBuyer());
    if (answer.status === 'ready') for (const profile of answer.profiles) await deps.esims.refresh(profile);
  } catch (error) {
    console.error('esims: the partner could not say', found.esim!.esim_tran_no, error instanceof Error ? error.message : error);
    return undefined;
  }
  return (await deps.esims.ownedOne(uid, found.order.id)) ?? found;
}

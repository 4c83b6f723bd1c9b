import { forAWaitingBuyer } from '../partner/partner.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { EsimStore, OwnedEsim } from './store.types.ts';

/**
 * The owner's eSIM as the partner has it now, before a step the partner's state decides (a refund,
 * a replacement: installed or used a minute ago changes the answer): one esim/query, stored, then
 * read again. Undefined when the partner could not say: nothing is done, the buyer can try again.
 */
export async function readAtPartner(
  deps: { esims: Pick<EsimStore, 'ownedOne' | 'refresh'>; partners: Partners },
  uid: string,
  found: OwnedEsim,
): Promise<OwnedEsim | undefined> {
  try {
    const esim = found.esim!;
    const answer = await deps.partners.of(esim.partner).queryProfiles({ esimTranNo: esim.esim_tran_no }, forAWaitingBuyer());
    if (answer.status === 'ready') for (const profile of answer.profiles) await deps.esims.refresh(esim.partner, profile);
  } catch (error) {
    console.error('esims: the partner could not say', found.esim!.esim_tran_no, error instanceof Error ? error.message : error);
    return undefined;
  }
  return (await deps.esims.ownedOne(uid, found.order.id)) ?? found;
}

import { ESIM_SERVICE_ACTION_SENDS } from '../../config/constants.ts';
import { PartnerError, profileOf } from '../partner/partner.ts';
import type { EsimPartner, EsimProfile, EsimStatus } from '../partner/partner.types.ts';

/** What an operator can do to an eSIM's service at the partner (issue 30, item 4). */
export type EsimServiceAction = 'suspend' | 'unsuspend' | 'revoke';

/**
 * Why the partner would not do it: the eSIM is closed (cancelled or revoked), its validity ended,
 * the partner has no such eSIM, or its state forbids it otherwise (still being allocated, or a
 * refusal the state does not explain).
 */
export type EsimServiceRefusal = 'closed' | 'expired' | 'not_found' | 'not_allowed';

export type EsimServiceResult =
  /** Done now by this call, also when its answer was lost and a read of the eSIM showed it done. */
  | { outcome: 'applied' }
  /** It was so already when asked (suspended, working, closed): nothing changed. */
  | { outcome: 'already' }
  /** Not done, and nothing changed; `detail` is the partner's answer, for the operator's record. */
  | { outcome: 'refused'; reason: EsimServiceRefusal; detail: string };

/** Whether the eSIM is where the action takes it. A revoke is done once the eSIM is closed, cancelled or revoked: it works no more. */
const DONE: Readonly<Record<EsimServiceAction, (status: EsimStatus) => boolean>> = {
  suspend: (status) => status === 'suspended',
  unsuspend: (status) => status === 'ready' || status === 'installed' || status === 'active' || status === 'used_up',
  revoke: (status) => status === 'cancelled',
};

/**
 * Suspends, unsuspends or revokes one eSIM at the partner and says what happened, safe when an
 * answer is lost (DESIGN 7): every call is sent once, and any failure but a plain 'no such eSIM'
 * is settled by reading the eSIM (`queryProfiles`), never by guessing. The eSIM in the target
 * state: 'applied' after a send whose answer was lost, 'already' after a refusal to the first send.
 * Not in it: a refusal answers 'refused' with the reason its state gives; a lost answer is sent
 * again (the read shows it was not applied; should the lost one land late, the repeat is refused
 * and read again), at most ESIM_SERVICE_ACTION_SENDS times.
 *
 * Throws the PartnerError when it cannot be settled (the partner unreachable for the sends or
 * for the read): nothing is known then, and asking again later is safe, each action leaving the
 * eSIM in one state however often it is applied.
 */
export async function changeEsimService(partner: EsimPartner, esimTranNo: string, action: EsimServiceAction): Promise<EsimServiceResult> {
  const send = {
    suspend: () => partner.suspendProfile(esimTranNo),
    unsuspend: () => partner.unsuspendProfile(esimTranNo),
    revoke: () => partner.revokeProfile(esimTranNo),
  }[action];
  /** Whether an earlier send of this call may have been applied (its answer was lost). */
  let sentUnsure = false;
  for (let sends = 1; ; sends++) {
    try {
      await send();
      return { outcome: 'applied' };
    } catch (error) {
      if (!(error instanceof PartnerError)) throw error;
      if (error.refused && error.kind === 'not_found') return { outcome: 'refused', reason: 'not_found', detail: error.message };
      const profile = await readEsim(partner, esimTranNo);
      if (profile === 'not_found') return { outcome: 'refused', reason: 'not_found', detail: error.message };
      if (profile && DONE[action](profile.status)) return { outcome: sentUnsure || !error.refused ? 'applied' : 'already' };
      if (error.refused) return { outcome: 'refused', reason: refusalOf(profile), detail: error.message };
      // Lost, and the read shows it was not applied: sending again is safe.
      sentUnsure = true;
      if (sends >= ESIM_SERVICE_ACTION_SENDS) throw error;
    }
  }
}

/** The eSIM as the partner has it now; undefined while it is being allocated. At the budget's rank for an action under way. */
async function readEsim(partner: EsimPartner, esimTranNo: string): Promise<EsimProfile | undefined | 'not_found'> {
  try {
    return await profileOf(partner, esimTranNo);
  } catch (error) {
    // An answer that lists no such eSIM: certain, though it carries no error code.
    if (error instanceof PartnerError && !error.retryable && error.kind === 'not_found') return 'not_found';
    throw error;
  }
}

function refusalOf(profile: EsimProfile | undefined): EsimServiceRefusal {
  if (profile?.status === 'cancelled') return 'closed';
  if (profile?.status === 'expired') return 'expired';
  return 'not_allowed';
}

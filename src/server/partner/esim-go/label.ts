import { PartnerError } from '../partner.ts';
import { esimDetailsRequest, type CallOptions, type EsimGoCall } from './client.ts';
import { EsimDetailsAnswer } from './schemas.ts';

/**
 * Labels an eSIM with the order it was sold to (Update eSIM Details: PUT /esims with iccid and
 * customerRef, given as the documented body and query both): 'the association of a unique
 * identifier with an eSIM ... such as customer order IDs'. The label makes the eSIM's key checkable
 * (esim-key.ts) and tells the orphan sweep it is an order's (orphans.ts).
 *
 * Written once the shop stored the eSIM (EsimPartner.labelEsim), at the usage priority (it waits
 * behind every delivery in a rush), and again by any later read that finds it missing (esim-reads.ts
 * detailsOf), so one lost with a restarted instance is written all the same.
 * Repeating it is harmless; a failure that may have been applied is settled by reading it back.
 */
export async function label(call: EsimGoCall, iccid: string, customerRef: string, options: CallOptions): Promise<void> {
  const request = {
    method: 'PUT',
    call: 'PUT /esims',
    path: '/esims',
    query: { iccid, customerRef },
    body: { iccid, customerRef },
  } as const;
  try {
    await call(request, () => undefined, { ...options, repeatable: true });
  } catch (error) {
    if (error instanceof PartnerError && error.refused) throw error;
    const now = await call(esimDetailsRequest(iccid), (json) => EsimDetailsAnswer.parse(json), options).catch(() => undefined);
    if (now?.customerRef !== customerRef) throw error;
  }
}

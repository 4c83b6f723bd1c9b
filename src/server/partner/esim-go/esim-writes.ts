import { PartnerError } from '../partner.ts';
import type { EsimTopUp, PartnerErrorKind, TopUpResult } from '../partner.types.ts';
import type { EsimGoCall } from './client.ts';
import { PARTNER } from './config.ts';
import { parseEsimKey, type EsimGoKey } from './esim-key.ts';
import type { EsimReader } from './esim-reads.ts';
import { esimStatus, totalsOf, wasInstalled } from './esim-state.ts';
import { StatusAnswer, ValidateAnswer } from './schemas.ts';

/**
 * Changing an eSIM at eSIM Go: cancelling (revoking its unused bundles with a refund to the
 * balance), suspending and unsuspending, topping up. Each first reads the eSIM and checks it is
 * still the one its key names (esim-key.ts). Writes are sent once: none is safe to repeat blindly
 * (a second revoke takes the next unused bundle of that name, a second top-up buys again).
 */

/** A refusal decided on eSIM Go's state or answer, before anything was sent that changes it (PartnerError.refused). */
function refused(call: string, code: string, kind: PartnerErrorKind | undefined, reason: string): never {
  throw new PartnerError({ partner: PARTNER, call, code, kind, retryable: false, attempts: 1, reason });
}

function keyOf(call: string, esimTranNo: string): EsimGoKey {
  return parseEsimKey(esimTranNo) ?? refused(call, 'not_a_key', 'not_found', `${esimTranNo} is not an eSIM Go key`);
}

const REVOKE = 'DELETE /esims/{iccid}/bundles/{name}';

/**
 * Revoke applied Bundle (DELETE /esims/{iccid}/bundles/{name}) of every bundle not used yet, with
 * refundToBalance: 'If a bundle assignment has not been started and no data has been consumed, the
 * bundle assignment can ... be credited back to the organisations balance'. Our terms refund only a
 * never-installed eSIM, so one that reached a phone is refused here, before eSIM Go is asked. Each
 * revoke is validated first (type=validate: 'will provide options for the revoke and the behaviours'):
 * one eSIM Go says it would revoke without a refund (refunds are 'disabled by default', or the refund
 * period is over) is refused, not revoked. An eSIM no longer in the account (eSIM Go's returns
 * process takes an uninstalled eSIM left without bundles at once) was cancelled before: done.
 */
export async function cancelProfile(call: EsimGoCall, reader: EsimReader, esimTranNo: string): Promise<void> {
  const key = keyOf(REVOKE, esimTranNo);
  const options = { priority: 'refund' } as const;
  let details;
  try {
    details = await reader.detailsOf(key, options);
  } catch (error) {
    // 'you will no longer be able to access it': gone after the refund of an earlier cancel whose
    // answer was lost (or, gone and issued again, another order's now: still none of ours to cancel).
    if (error instanceof PartnerError && !error.retryable && error.kind === 'not_found') return;
    throw error;
  }
  const assignments = await reader.bundlesOf(key.iccid, options);
  if (esimStatus(details, assignments) === 'cancelled')
    refused(REVOKE, 'cancelled', 'not_allowed', `eSIM ${key.iccid} was cancelled already`);
  if (wasInstalled(details, assignments)) refused(REVOKE, 'installed', 'not_allowed', `eSIM ${key.iccid} reached a phone: not refundable`);
  for (const assignment of assignments.filter((a) => a.bundleState === 'queued' || a.bundleState === 'processing')) {
    const path = `/esims/${encodeURIComponent(key.iccid)}/bundles/${encodeURIComponent(assignment.bundle)}`;
    const revoke = (type: 'validate' | 'transaction') =>
      ({ method: 'DELETE', call: REVOKE, path, query: { type, refundToBalance: 'true' } }) as const;
    const plan = await call(revoke('validate'), (json) => StatusAnswer.parse(json)?.status ?? '', { ...options, repeatable: true });
    if (/without (a )?refund|not (be )?refunded|no refund/i.test(plan))
      refused(REVOKE, 'not_refundable', 'not_allowed', `eSIM Go: ${plan}`);
    await call(revoke('transaction'), () => undefined, { ...options, repeatable: false });
  }
}

/**
 * Suspend or unsuspend an eSIM (v2.5, POST /esims/{iccid}/suspend with { suspend }): 'it will not
 * be able to connect to the network'; its bundles are kept (guides/suspend_unsuspend). eSIM Go's
 * refusals (already suspended, a policy suspension it alone can lift) come back as its answers.
 */
export async function setSuspended(call: EsimGoCall, reader: EsimReader, esimTranNo: string, suspend: boolean): Promise<void> {
  const name = 'POST /esims/{iccid}/suspend';
  const key = keyOf(name, esimTranNo);
  await reader.detailsOf(key, { priority: 'refund' });
  const request = { method: 'POST', call: name, path: `/esims/${encodeURIComponent(key.iccid)}/suspend`, body: { suspend } } as const;
  await call(request, () => undefined, { repeatable: false });
}

/**
 * Not offered: eSIM Go has no call that closes an eSIM for good. Revoking its bundles leaves an eSIM
 * that takes new ones (and, uninstalled, sends it through the returns process to be issued again),
 * suspending is reversible, and v2.5's 'Delete eSIM' is listed without the behaviour we would need
 * to rely on. Refused here, nothing sent: suspend it, or cancel a never-installed one.
 */
export function revokeProfile(esimTranNo: string): Promise<void> {
  return Promise.reject(
    new PartnerError({
      partner: PARTNER,
      call: 'revoke',
      code: 'unsupported',
      kind: 'not_allowed',
      retryable: false,
      attempts: 0,
      reason: `eSIM Go cannot close eSIM ${esimTranNo} for good: suspend it instead, or cancel it if it was never installed`,
    }),
  );
}

/**
 * A top-up: the bundle applied to the eSIM by an order paid from the balance (Create orders with
 * assign and the eSIM's ICCID; allowReassign false, or an incompatible bundle would come on a new
 * eSIM). Validated first, then sent once; the new totals are read back. eSIM Go's order keeps no
 * reference of ours, so `transactionId` is not sent: the shop reads the totals before any repeat.
 */
export async function topUp(call: EsimGoCall, reader: EsimReader, { esimTranNo, partnerCode }: EsimTopUp): Promise<TopUpResult> {
  const key = keyOf('POST /orders', esimTranNo);
  await reader.detailsOf(key, { priority: 'refund' });
  const line = { type: 'bundle', quantity: 1, item: partnerCode, iccids: [key.iccid], allowReassign: false };
  const order = (type: 'validate' | 'transaction') =>
    ({ method: 'POST', call: 'POST /orders', path: '/orders', body: { type, assign: true, order: [line] } }) as const;
  const validated = await call(order('validate'), (json) => ValidateAnswer.parse(json), { priority: 'refund', repeatable: true });
  if (validated.valid === false)
    refused('POST /orders', 'not_valid', undefined, `eSIM Go validated the top-up ${partnerCode} as not valid`);
  await call(order('transaction'), () => undefined, { priority: 'refund', repeatable: false });
  const assignments = await reader.bundlesOf(key.iccid, { priority: 'refund' });
  return totalsOf(assignments, await reader.daysOf(assignments, { priority: 'refund' }));
}

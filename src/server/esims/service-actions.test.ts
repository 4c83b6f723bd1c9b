import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAILURES, startEsimAccessStandIn, type EsimAccessStandIn } from '../../../stand-ins/esim-access/server.ts';
import { ESIM_SERVICE_ACTION_SENDS } from '../../config/constants.ts';
import { createEsimAccessPartner } from '../partner/esim-access/adapter.ts';
import { PartnerError } from '../partner/partner.ts';
import type { EsimPartner, EsimStatus } from '../partner/partner.types.ts';
import { changeEsimService } from './service-actions.ts';

// Suspend, unsuspend and revoke through the real adapter against the eSIM Access stand-in over
// HTTP, with answers lost after the partner applied the call and connections dropped before.
const account = { accessCode: 'service-actions', secretKey: 'service-actions-secret' };
let standIn: EsimAccessStandIn;
let partner: EsimPartner;
beforeEach(async () => {
  standIn = await startEsimAccessStandIn({ ...account, allocationDelayMs: 20 });
  // The production defaults (3 retries for reads) with short back-offs.
  partner = createEsimAccessPartner({ ...account, baseUrl: standIn.url, backoffMs: 10 });
});
afterEach(() => standIn.close());

/** An allocated eSIM, installed and in use unless told otherwise. */
async function esim(inUse = true): Promise<string> {
  const transactionId = randomUUID();
  await partner.orderEsim({ transactionId, partnerCode: standIn.packages[0]!.packageCode, count: 1 });
  const esimTranNo = standIn.tranNoOfTransaction(transactionId)!;
  for (let i = 0; (await partner.queryProfiles({ esimTranNo })).status === 'allocating'; i++) {
    if (i > 100) throw new Error('never allocated');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (inUse) standIn.markInstalled(esimTranNo);
  return esimTranNo;
}
async function statusOf(esimTranNo: string): Promise<EsimStatus | undefined> {
  const answer = await partner.queryProfiles({ esimTranNo });
  return answer.status === 'ready' ? answer.profiles[0]!.status : undefined;
}
const sends = (call: string) => standIn.requests.filter((r) => r.call === call).length;

describe('changeEsimService', () => {
  it('suspends, unsuspends and revokes an eSIM in use, the partner refunding nothing for the revoke', async () => {
    const tranNo = await esim();
    const balance = await partner.balance();
    expect(await changeEsimService(partner, tranNo, 'suspend')).toEqual({ outcome: 'applied' });
    expect(await statusOf(tranNo)).toBe('suspended');
    expect(await changeEsimService(partner, tranNo, 'unsuspend')).toEqual({ outcome: 'applied' });
    expect(await statusOf(tranNo)).toBe('active');
    expect(await changeEsimService(partner, tranNo, 'revoke')).toEqual({ outcome: 'applied' });
    expect(await statusOf(tranNo)).toBe('cancelled');
    expect(await partner.balance()).toBe(balance);
  });

  it('answers already when the eSIM is so, changing nothing', async () => {
    const tranNo = await esim();
    expect(await changeEsimService(partner, tranNo, 'unsuspend')).toEqual({ outcome: 'already' });
    await changeEsimService(partner, tranNo, 'suspend');
    expect(await changeEsimService(partner, tranNo, 'suspend')).toEqual({ outcome: 'already' });
    await changeEsimService(partner, tranNo, 'revoke');
    expect(await changeEsimService(partner, tranNo, 'revoke')).toEqual({ outcome: 'already' });
    expect(await statusOf(tranNo)).toBe('cancelled');
  });

  it('refuses with the reason the state gives: a closed eSIM, an unknown one', async () => {
    const revoked = await esim();
    await changeEsimService(partner, revoked, 'revoke');
    for (const action of ['suspend', 'unsuspend'] as const) {
      expect(await changeEsimService(partner, revoked, action)).toEqual({
        outcome: 'refused',
        reason: 'closed',
        detail: expect.stringContaining('200002'),
      });
    }
    const cancelled = await esim(false);
    await partner.cancelProfile(cancelled);
    expect(await changeEsimService(partner, cancelled, 'suspend')).toMatchObject({ outcome: 'refused', reason: 'closed' });
    expect(await changeEsimService(partner, '00000000000000', 'revoke')).toMatchObject({ outcome: 'refused', reason: 'not_found' });
  });

  it.each([
    ['suspend', 'suspended'],
    ['revoke', 'cancelled'],
  ] as const)('%s: the answer lost after the partner applied it is read as applied, sent once', async (action, status) => {
    const tranNo = await esim();
    standIn.failNext(FAILURES.lostAnswer, { call: `esim/${action}` });
    expect(await changeEsimService(partner, tranNo, action)).toEqual({ outcome: 'applied' });
    expect(sends(`esim/${action}`)).toBe(1);
    expect(await statusOf(tranNo)).toBe(status);
  });

  it('unsuspend: a connection dropped before the partner applied it is read, sent again, applied once', async () => {
    const tranNo = await esim();
    await changeEsimService(partner, tranNo, 'suspend');
    standIn.failNext({ drop: true }, { call: 'esim/unsuspend' });
    expect(await changeEsimService(partner, tranNo, 'unsuspend')).toEqual({ outcome: 'applied' });
    expect(sends('esim/unsuspend')).toBe(2);
    expect(await statusOf(tranNo)).toBe('active');
  });

  it('a repeat refused because the first send landed late after all is applied, not already', async () => {
    const tranNo = await esim();
    // The first send times out (1 s) and lands at the partner at 1.5 s; the read at 1 s shows it
    // not applied; the repeat lands at 1.7 s, after the first, and is refused (200002).
    const impatient = createEsimAccessPartner({ ...account, baseUrl: standIn.url, backoffMs: 10, timeoutMs: 1_000 });
    standIn.failNext({ delayMs: 1_500 }, { call: 'esim/suspend' });
    standIn.failNext({ delayMs: 700 }, { call: 'esim/suspend' });
    expect(await changeEsimService(impatient, tranNo, 'suspend')).toEqual({ outcome: 'applied' });
    expect(standIn.requests.filter((r) => r.call === 'esim/suspend').map((r) => r.errorCode)).toEqual([null, '200002']);
    expect(await statusOf(tranNo)).toBe('suspended');
  });

  it('gives up after its sends when the partner never answers, the state unchanged, and may be asked again', async () => {
    const tranNo = await esim();
    standIn.failNext(FAILURES.serverError, { call: 'esim/revoke', count: ESIM_SERVICE_ACTION_SENDS });
    const error = await changeEsimService(partner, tranNo, 'revoke').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartnerError);
    expect(error).toMatchObject({ retryable: true, refused: false });
    expect(sends('esim/revoke')).toBe(ESIM_SERVICE_ACTION_SENDS);
    expect(await statusOf(tranNo)).toBe('active');
    expect(await changeEsimService(partner, tranNo, 'revoke')).toEqual({ outcome: 'applied' });
  });

  it('does not know when the read fails too: throws, nothing guessed', async () => {
    const tranNo = await esim();
    standIn.failNext(FAILURES.lostAnswer, { call: 'esim/suspend' });
    standIn.failNext(FAILURES.serverError, { call: 'esim/query', count: 4 });
    await expect(changeEsimService(partner, tranNo, 'suspend')).rejects.toMatchObject({ call: 'esim/query', retryable: true });
    // Applied meanwhile: asking again says so.
    expect(await changeEsimService(partner, tranNo, 'suspend')).toEqual({ outcome: 'already' });
  });
});

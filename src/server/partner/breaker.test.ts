import { describe, expect, it } from 'vitest';
import { PARTNER_BREAKER } from '../../config/constants.ts';
import { PartnerError } from './partner.ts';
import type { EsimPartner } from './partner.types.ts';
import { partnerRegistry } from './registry.ts';

const down = () => new PartnerError({ partner: 'eSIM Go', call: 'orders', code: 'HTTP 503', retryable: true, attempts: 3, reason: 'down' });
const refusal = () =>
  new PartnerError({
    partner: 'eSIM Go',
    call: 'orders',
    code: 'insufficient',
    kind: 'insufficient_balance',
    retryable: false,
    attempts: 1,
    reason: 'no',
  });

/** A partner's circuit breaker (issue 48 item 6), as its calls through the registry meet failures. */
describe("a partner's circuit breaker", () => {
  let now = 0;
  let answer: () => Promise<number> = async () => 1;
  const partners = partnerRegistry(
    { 'esim-go': { name: 'eSIM Go', balance: () => answer() } as unknown as EsimPartner },
    { now: () => now },
  );
  const call = () =>
    partners
      .of('esim-go')
      .balance()
      .catch(() => undefined);

  it(`opens after ${PARTNER_BREAKER.failures} failures in a row, half-opens after ${PARTNER_BREAKER.openMs / 1000} s, and closes on one answer`, async () => {
    answer = async () => {
      throw down();
    };
    for (let i = 1; i < PARTNER_BREAKER.failures; i++) await call();
    expect(partners.breaker('esim-go')).toEqual({ state: 'closed', failures: PARTNER_BREAKER.failures - 1 });
    await call();
    expect(partners.breaker('esim-go').state).toBe('open');
    now += PARTNER_BREAKER.openMs;
    expect(partners.breaker('esim-go').state).toBe('half_open');
    // Its next call decides: a failure opens it again, for another while.
    await call();
    expect(partners.breaker('esim-go').state).toBe('open');
    now += PARTNER_BREAKER.openMs;
    answer = async () => 1;
    expect(await partners.of('esim-go').balance()).toBe(1);
    expect(partners.breaker('esim-go')).toEqual({ state: 'closed', failures: 0 });
  });

  it('counts a refusal as an answer: the partner is up, whatever it said', async () => {
    answer = async () => {
      throw down();
    };
    for (let i = 1; i < PARTNER_BREAKER.failures; i++) await call();
    answer = async () => {
      throw refusal();
    };
    await expect(partners.of('esim-go').balance()).rejects.toThrow(PartnerError);
    expect(partners.breaker('esim-go')).toEqual({ state: 'closed', failures: 0 });
  });
});

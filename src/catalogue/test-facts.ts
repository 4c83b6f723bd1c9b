import type { PlanFacts } from './schema.ts';

/**
 * Plan facts for tests that build a package by hand: one 4G operator per covered country, a
 * fixed volume, validity from the first connection. Override what the test is about.
 */
export function testFacts(countries: readonly string[], overrides: Partial<PlanFacts> = {}): PlanFacts {
  return {
    networks: countries.map((country) => ({ country, operators: [{ name: `${country} Mobile`, networkType: '4G' }] })),
    data: { kind: 'total' },
    validityStarts: 'first-connection',
    installWithinDays: 180,
    topUp: true,
    hotspot: null,
    sms: false,
    trafficExit: null,
    ...overrides,
  };
}

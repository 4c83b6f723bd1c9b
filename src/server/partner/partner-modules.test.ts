import { describe, expect, it } from 'vitest';
import { ESIM_GO, ESIM_GO_BUDGET } from './esim-go/config.ts';
import { configuredPartners, PARTNER_MODULES } from './partner-modules.ts';

// The partners beside eSIM Access come from their modules, each only when the environment sets its account.
describe('configuredPartners', () => {
  it('runs with none of them when no account is set, and with eSIM Go once ESIM_GO_API_KEY is', () => {
    expect(PARTNER_MODULES.map((m) => m.id)).toEqual([ESIM_GO]);
    expect(configuredPartners({})).toEqual([]);
    expect(configuredPartners({ ESIM_GO_API_KEY: '  ' })).toEqual([]);
    const [esimGo, ...more] = configuredPartners({ ESIM_GO_API_KEY: 'key', ESIM_GO_TIMEOUT_MS: '90000' });
    expect(more).toEqual([]);
    // Its budget rows name the partner, never the key; a request keeps its slot as long as the adapter may wait.
    expect(esimGo).toMatchObject({ id: ESIM_GO, budget: { account: ESIM_GO, limit: ESIM_GO_BUDGET, leaseMs: 180_000 } });
    expect(esimGo!.create().name).toBe('eSIM Go');
    // Its callbacks: one signed with another key is refused.
    expect(esimGo!.callbacks!('{}', () => 'not-a-signature')).toBe('unsigned');
  });

  it('refuses a bad value rather than running without the partner', () => {
    expect(() => configuredPartners({ ESIM_GO_API_KEY: 'key', ESIM_GO_TIMEOUT_MS: 'soon' })).toThrow(/ESIM_GO_TIMEOUT_MS/);
  });
});

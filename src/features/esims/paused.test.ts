import { describe, expect, it } from 'vitest';
import type { EsimView } from '../../contract/shop-api.ts';
import { isPaused, showsInstallStep } from './paused.ts';

const esim = (status: EsimView['status'], installStep: EsimView['installStep']) => ({ status, installStep });

describe('a paused eSIM (issue 46 item 8)', () => {
  it('is paused only when suspended', () => {
    expect(isPaused(esim('suspended', 'enabled'))).toBe(true);
    for (const status of ['preparing', 'ready', 'active', 'used_up', 'expired', 'refunding', 'refunded', 'replaced'] as const)
      expect(isPaused(esim(status, null))).toBe(false);
  });

  it('says nothing of the phone while paused: its step "turned on" would read as working', () => {
    for (const step of ['installed', 'enabled', 'in_use'] as const) expect(showsInstallStep(esim('suspended', step))).toBe(false);
  });

  it('says where it is on the phone otherwise, when that is known', () => {
    expect(showsInstallStep(esim('active', 'enabled'))).toBe(true);
    expect(showsInstallStep(esim('ready', 'downloaded'))).toBe(true);
    expect(showsInstallStep(esim('active', 'deleted'))).toBe(true);
    expect(showsInstallStep(esim('ready', null))).toBe(false);
  });
});

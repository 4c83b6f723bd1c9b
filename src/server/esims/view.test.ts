import { describe, expect, it } from 'vitest';
import type { OrderRow } from '../orders/store.types.ts';
import type { EsimOrder, EsimRow } from './store.types.ts';
import { canTopUp, esimStatus, esimStep, esimView, isRefundable, replacementCase } from './view.ts';

const NOW = new Date('2026-11-23T12:00:00Z');
const DAY = 86_400_000;
const order = (state: OrderRow['state'], daysAgo = 1) => ({ state, created_at: new Date(NOW.getTime() - daysAgo * DAY) }) as EsimOrder;
const esim = (overrides: Partial<EsimRow> = {}) =>
  ({ status: 'ready', installed: false, expires_at: new Date(NOW.getTime() + 30 * DAY), ...overrides }) as EsimRow;

describe('what the owner sees of an eSIM', () => {
  it('follows the order until delivery and once refunding', () => {
    expect(esimStatus(order('paid'), undefined, NOW)).toBe('preparing');
    expect(esimStatus(order('provisioning'), undefined, NOW)).toBe('preparing');
    expect(esimStatus(order('fulfilment_failed'), undefined, NOW)).toBe('refunding');
    expect(esimStatus(order('refund_requested'), esim(), NOW)).toBe('refunding');
    expect(esimStatus(order('refunded'), esim({ status: 'cancelled' }), NOW)).toBe('refunded');
  });

  it('then the partner’s state: ready, active once installed, used up, expired', () => {
    expect(esimStatus(order('delivered'), esim(), NOW)).toBe('ready');
    expect(esimStatus(order('delivered'), esim({ status: 'installed', installed: true }), NOW)).toBe('active');
    expect(esimStatus(order('delivered'), esim({ status: 'active', installed: true }), NOW)).toBe('active');
    expect(esimStatus(order('delivered'), esim({ status: 'used_up', installed: true }), NOW)).toBe('used_up');
    expect(esimStatus(order('delivered'), esim({ status: 'expired' }), NOW)).toBe('expired');
    expect(esimStatus(order('delivered'), esim({ status: 'active', expires_at: new Date(NOW.getTime() - 1) }), NOW)).toBe('expired');
  });

  it('says a paused eSIM is paused, not active, with nothing to install, refund or top up', () => {
    const paused = esim({ status: 'suspended', installed: true });
    expect(esimStatus(order('delivered'), paused, NOW)).toBe('suspended');
    expect(isRefundable('suspended', order('delivered'), paused, NOW)).toBe(false);
    expect(canTopUp('suspended')).toBe(false);
  });

  it('shows the install step and its time while the eSIM is the owner’s, none once refunded (issue 22)', () => {
    const at = new Date('2026-11-23T11:50:00Z');
    const downloaded = esim({ status: 'installed', installed: true, install_step: 'downloaded', install_step_at: at });
    expect(esimStep(order('delivered'), downloaded, NOW)).toEqual({
      status: 'active',
      installStep: 'downloaded',
      installStepAt: '2026-11-23T11:50:00.000Z',
    });
    expect(esimStep(order('refund_requested'), downloaded, NOW)).toEqual({ status: 'refunding', installStep: null, installStepAt: null });
    expect(esimStep(order('paid'), undefined, NOW)).toEqual({ status: 'preparing', installStep: null, installStepAt: null });
  });

  it('is refundable only never installed and within 30 days, and topped up only on a device', () => {
    expect(isRefundable('ready', order('delivered', 29), esim(), NOW)).toBe(true);
    expect(isRefundable('ready', order('delivered', 30), esim(), NOW)).toBe(false);
    expect(isRefundable('active', order('delivered', 1), esim({ installed: true }), NOW)).toBe(false);
    expect(isRefundable('ready', order('delivered', 1), esim({ installed: true }), NOW)).toBe(false);
    expect([canTopUp('active'), canTopUp('used_up'), canTopUp('ready'), canTopUp('expired'), canTopUp('refunded')]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it('offers no top-up of a plan the partner sells none for, and says so; an order from before it was kept asks the partner', async () => {
    const sold = (topUp?: boolean) =>
      ({
        ...order('delivered'),
        id: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
        number: 7,
        plan: {
          id: 'ad-1gb-7d',
          metadata: { dataAmount: { value: 1, unit: 'GB' } },
          validity: 7,
          validityUnit: 'day',
          supportedCountries: ['AD'],
          ...(topUp === undefined ? {} : { topUp }),
        },
      }) as EsimOrder;
    const installed = esim({
      status: 'active',
      installed: true,
      iccid: '8985200012345678901',
      activation_code: 'LPA:1$smdp.example.test$ABC123',
      smdp_address: 'smdp.example.test',
      matching_id: 'ABC123',
      total_bytes: 2 ** 30,
      used_bytes: 0,
    });
    const andorra = { code: 'AD', name: 'Andorra', flag: '/flags/AD.svg' };
    expect(await esimView(sold(false), installed, andorra, NOW)).toMatchObject({
      status: 'active',
      canTopUp: false,
      topUpSupported: false,
    });
    expect(await esimView(sold(true), installed, andorra, NOW)).toMatchObject({ status: 'active', canTopUp: true, topUpSupported: true });
    expect(await esimView(sold(), installed, andorra, NOW)).toMatchObject({ canTopUp: true, topUpSupported: true });
  });

  it('refunds or replaces an eSIM deleted before it carried data, at our cost; replaces a never-downloaded one (issue 32 item 3)', () => {
    const esimOrder = (daysAgo = 1) => ({ ...order('delivered', daysAgo), kind: 'esim' }) as EsimOrder;
    const deleted = esim({ status: 'installed', installed: true, install_step: 'deleted', used_bytes: 0 });
    const deletedAfterUse = esim({ status: 'active', installed: true, install_step: 'deleted', used_bytes: 1 });
    expect(isRefundable('active', esimOrder(), deleted, NOW)).toBe(true);
    expect(isRefundable('active', esimOrder(), deletedAfterUse, NOW)).toBe(false);
    expect(isRefundable('active', esimOrder(30), deleted, NOW)).toBe(false);
    expect(replacementCase('ready', esimOrder(), esim(), NOW)).toBe('never_downloaded');
    expect(replacementCase('active', esimOrder(), deleted, NOW)).toBe('deleted_unused');
    expect(replacementCase('active', esimOrder(), deletedAfterUse, NOW)).toBeUndefined();
    expect(replacementCase('active', esimOrder(), esim({ status: 'active', installed: true, used_bytes: 0 }), NOW)).toBeUndefined();
    expect(replacementCase('ready', esimOrder(30), esim(), NOW)).toBeUndefined();
    expect(replacementCase('ready', esimOrder(), undefined, NOW)).toBeUndefined();
    // Replaced: the newer eSIM is the one to use, this one shows no codes.
    const replaced = { ...esimOrder(), replaced_by: 'b' } as EsimOrder;
    expect(esimStatus(replaced, esim({ status: 'cancelled' }), NOW)).toBe('replaced');
    expect(esimStatus(replaced, deleted, NOW)).toBe('replaced');
  });
});

import { describe, expect, it } from 'vitest';
import { esimView, orderView } from '../../../tests/support/shop-orders.ts';
import { inProgress } from './order-progress.ts';

describe('payment success: when the order is finished', () => {
  it('waits for a delivered eSIM’s codes, but not for a top-up’s eSIM, which a traveller’s link holder does not see', () => {
    expect(inProgress(orderView({ state: 'delivered', esim: null }))).toBe(true);
    expect(inProgress(orderView({ state: 'delivered', esim: esimView() }))).toBe(false);
    expect(inProgress(orderView({ state: 'delivered', kind: 'top_up', esim: null }))).toBe(false);
    expect(inProgress(orderView({ state: 'provisioning', kind: 'top_up', esim: null }))).toBe(true);
  });
});

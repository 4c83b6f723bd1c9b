import { describe, expect, it } from 'vitest';
import { exchangeRefusal } from './exchange.ts';
import type { EsimOrder, EsimRow } from './store.types.ts';

const NOW = new Date('2026-11-23T12:00:00Z');
const DAY = 86_400_000;
const owned = (order: Partial<EsimOrder> = {}, esim: Partial<EsimRow> | undefined = {}) => ({
  order: { state: 'delivered', kind: 'esim', destination: 'DE', created_at: new Date(NOW.getTime() - DAY), ...order } as EsimOrder,
  esim: esim && ({ status: 'ready', installed: false, expires_at: new Date(NOW.getTime() + 30 * DAY), ...esim } as EsimRow),
});

describe('exchanging an eSIM bought for the wrong destination (issue 32 item 5)', () => {
  it('is allowed for a delivered, never-installed eSIM within the refund window, for another destination', () => {
    expect(exchangeRefusal(owned(), 'FR', false, NOW)).toBeUndefined();
  });

  it('follows the refund rules: not installed, within 30 days, delivered, the buyer’s own new eSIM', () => {
    expect(exchangeRefusal(undefined, 'FR', false, NOW)).toBe('not_refundable');
    expect(exchangeRefusal(owned({}, { installed: true, status: 'installed' }), 'FR', false, NOW)).toBe('not_refundable');
    expect(exchangeRefusal(owned({ created_at: new Date(NOW.getTime() - 30 * DAY) }), 'FR', false, NOW)).toBe('not_refundable');
    expect(exchangeRefusal(owned({ state: 'paid' }, undefined), 'FR', false, NOW)).toBe('not_refundable');
    expect(exchangeRefusal(owned({ state: 'refunded' }, { status: 'cancelled' }), 'FR', false, NOW)).toBe('not_refundable');
    expect(exchangeRefusal(owned({ kind: 'top_up' }), 'FR', false, NOW)).toBe('not_refundable');
  });

  it('is for another destination, and once', () => {
    expect(exchangeRefusal(owned(), 'DE', false, NOW)).toBe('same_destination');
    expect(exchangeRefusal(owned(), 'FR', true, NOW)).toBe('already_exchanged');
  });

  it('refuses a replacement at our cost (issue 46 item 2): nothing was paid for it to refund at the exchange’s delivery', () => {
    expect(exchangeRefusal(owned({ replaces: 'a0000000-0000-4000-8000-000000000000' }), 'FR', false, NOW)).toBe('replacement');
  });
});

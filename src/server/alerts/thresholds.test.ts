import { describe, expect, it } from 'vitest';
import { dueAlerts, type AlertOrder } from './thresholds.ts';

/** The alerts due for an eSIM (issue 23): 80 % and used up per data round, the last day once installed, none after a refund. */
const NOW = new Date('2026-07-10T12:00:00.000Z');
const HOUR = 3_600_000;
const GB = 2 ** 30;
const delivered = { state: 'delivered', kind: 'esim' } as const;
const esim = (fields: Partial<Parameters<typeof dueAlerts>[1]> = {}): Parameters<typeof dueAlerts>[1] => ({
  status: 'active',
  installed: true,
  expires_at: new Date(NOW.getTime() + 10 * 24 * HOUR),
  total_bytes: GB,
  used_bytes: 0,
  data_round: 0,
  ...fields,
});
const kinds = (order: AlertOrder, fields: Partial<Parameters<typeof dueAlerts>[1]>, dataKind = 'total' as const) =>
  dueAlerts(order, esim(fields), dataKind, NOW).map((a) => `${a.kind} ${a.round}`);

describe('dueAlerts', () => {
  it('is due at 80 % of the data used, not a byte before, in the eSIM’s data round', () => {
    expect(kinds(delivered, { used_bytes: Math.ceil(0.8 * GB) - 1 })).toEqual(['connected first']);
    expect(kinds(delivered, { used_bytes: Math.ceil(0.8 * GB) })).toEqual(['data_80 data:0']);
    expect(dueAlerts(delivered, esim({ used_bytes: 0.85 * GB }), 'total', NOW)[0]!.facts).toEqual({
      usedBytes: 0.85 * GB,
      totalBytes: GB,
      expiresAt: esim().expires_at!.toISOString(),
    });
  });

  it('says only "used up" when the data is used up, even if 80 % was never sent, and so does the partner’s used-up state', () => {
    expect(kinds(delivered, { used_bytes: GB })).toEqual(['data_used_up data:0']);
    expect(kinds(delivered, { used_bytes: 2 * GB })).toEqual(['data_used_up data:0']);
    expect(kinds(delivered, { used_bytes: 0.5 * GB, status: 'used_up' })).toEqual(['data_used_up data:0']);
  });

  it('starts a new round with each top-up: the same thresholds are due again under another key', () => {
    expect(kinds(delivered, { used_bytes: 0.9 * GB, data_round: 1 })).toEqual(['data_80 data:1']);
  });

  it('says nothing of data for a daily or unlimited plan (the total is a day’s volume) or an eSIM without a total', () => {
    expect(dueAlerts(delivered, esim({ used_bytes: GB }), 'daily', NOW).map((a) => a.kind)).toEqual(['connected']);
    expect(dueAlerts(delivered, esim({ used_bytes: GB }), 'unlimited', NOW).map((a) => a.kind)).toEqual(['connected']);
    expect(kinds(delivered, { used_bytes: 0, total_bytes: 0 })).toEqual([]);
  });

  it('says the eSIM is online at its first data, once, and only while that is the news', () => {
    expect(kinds(delivered, { used_bytes: 0 })).toEqual([]);
    expect(kinds(delivered, { used_bytes: 1 })).toEqual(['connected first']);
    expect(kinds(delivered, { used_bytes: 0.5 * GB })).toEqual(['connected first']);
    expect(kinds(delivered, { used_bytes: 0.5 * GB, data_round: 1 })).toEqual([]);
    // A first reading that finds the data nearly gone, or the last day, says that instead.
    expect(kinds(delivered, { used_bytes: 0.9 * GB })).toEqual(['data_80 data:0']);
    expect(kinds(delivered, { used_bytes: 1, expires_at: new Date(NOW.getTime() + HOUR) }).map((k) => k.split(' ')[0])).toEqual([
      'validity_1_day',
    ]);
    expect(kinds({ state: 'refunded', kind: 'esim' }, { used_bytes: 1 })).toEqual([]);
  });

  it('gives the get-connected checklist to an eSIM still without data the day after the trip start, once per start, while it is news', () => {
    // The trip started on 9 July: the check is due from noon UTC on the 10th (NOW) for two days.
    const trip = { ...delivered, trip_starts_on: '2026-07-09' };
    const fresh = { used_bytes: 0, usage_checked_at: new Date(NOW.getTime() - 60_000) };
    expect(kinds(trip, fresh)).toEqual(['not_connected 2026-07-09']);
    expect(kinds(trip, { ...fresh, installed: false, status: 'ready' })).toEqual(['not_connected 2026-07-09']);
    // Not before the day after, not two days later, not without a trip start.
    expect(kinds({ ...trip, trip_starts_on: '2026-07-10' }, fresh)).toEqual([]);
    expect(kinds({ ...trip, trip_starts_on: '2026-07-07' }, fresh)).toEqual([]);
    expect(kinds(delivered, fresh)).toEqual([]);
    // Online after all, or a zero not read lately (it says nothing): no checklist.
    expect(kinds(trip, { ...fresh, used_bytes: 1 })).toEqual(['connected first']);
    expect(kinds(trip, { used_bytes: 0, usage_checked_at: new Date(NOW.getTime() - HOUR) })).toEqual([]);
    expect(kinds(trip, { used_bytes: 0 })).toEqual([]);
    expect(kinds({ ...trip, state: 'refunded' }, fresh)).toEqual([]);
  });

  it('is due a day before the validity ends, once installed, keyed by that end, never after it', () => {
    const end = new Date(NOW.getTime() + 23 * HOUR);
    expect(kinds(delivered, { expires_at: end })).toEqual([`validity_1_day ${end.toISOString()}`]);
    expect(kinds(delivered, { expires_at: new Date(NOW.getTime() + 24 * HOUR) })).toHaveLength(1);
    expect(kinds(delivered, { expires_at: new Date(NOW.getTime() + 25 * HOUR) })).toEqual([]);
    expect(kinds(delivered, { expires_at: new Date(NOW.getTime() - HOUR) })).toEqual([]);
    // Before installation the date is the last day to install it: not the end of a plan in use.
    expect(kinds(delivered, { expires_at: end, installed: false, status: 'ready' })).toEqual([]);
    // Daily plans end too.
    expect(dueAlerts(delivered, esim({ expires_at: end }), 'daily', NOW).map((a) => a.kind)).toEqual(['validity_1_day']);
  });

  it('sends both when both are due', () => {
    expect(kinds(delivered, { used_bytes: GB, expires_at: new Date(NOW.getTime() + HOUR) }).map((k) => k.split(' ')[0])).toEqual([
      'data_used_up',
      'validity_1_day',
    ]);
  });

  it('sends nothing about an order being refunded or refunded, a top-up’s order, or a cancelled or expired eSIM', () => {
    const due = { used_bytes: GB, expires_at: new Date(NOW.getTime() + HOUR) };
    for (const state of ['refund_requested', 'refunded', 'fulfilment_failed', 'cancelled'] as const) {
      expect(kinds({ state, kind: 'esim' }, due), state).toEqual([]);
    }
    expect(kinds({ state: 'delivered', kind: 'top_up' }, due)).toEqual([]);
    expect(kinds(delivered, { ...due, status: 'cancelled' })).toEqual([]);
    expect(kinds(delivered, { ...due, status: 'expired' })).toEqual([]);
  });
});

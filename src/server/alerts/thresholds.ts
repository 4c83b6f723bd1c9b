import type { DataKind } from '../../catalogue/schema.ts';
import {
  ALERT_DATA_USED_SHARE,
  ALERT_VALIDITY_LEFT_MS,
  ESIM_USAGE_MAX_AGE_MS,
  TRIP_CHECK_AFTER_START_MS,
  TRIP_CHECK_WITHIN_MS,
} from '../../config/constants.ts';
import type { AlertKind } from '../../contract/shop-api.ts';
import type { EsimRow } from '../esims/store.types.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { AlertFacts } from './messages.ts';

/** An alert that is due, and the round it belongs to: each (eSIM, kind, round) goes at most once (esim_alerts). */
export interface DueAlert {
  kind: AlertKind;
  round: string;
  facts: AlertFacts;
}

type AlertEsim = Pick<EsimRow, 'status' | 'installed' | 'expires_at' | 'total_bytes' | 'used_bytes' | 'data_round'> &
  Partial<Pick<EsimRow, 'usage_checked_at'>>;
/** The order, and the day its trip starts if the buyer said (order_travellers, migration 0043). */
export type AlertOrder = Pick<OrderRow, 'state' | 'kind'> & { trip_starts_on?: string | null };

/** When an eSIM still offline gets the get-connected checklist: the day after the trip start the buyer gave (TRIP_CHECK_AFTER_START_MS). */
export const tripCheckAt = (tripStartsOn: string) => new Date(Date.parse(`${tripStartsOn}T00:00:00Z`) + TRIP_CHECK_AFTER_START_MS);

/** What was left when the alert was due, as its texts say it. */
export const alertFacts = (esim: AlertEsim): AlertFacts => ({
  usedBytes: esim.used_bytes,
  totalBytes: esim.total_bytes,
  expiresAt: esim.expires_at?.toISOString() ?? null,
});

/**
 * Whether an eSIM may get alerts at all: its own order (not a top-up's) delivered, so never while
 * a refund is asked for or after one, and the eSIM neither cancelled nor expired.
 */
export const alertable = (order: Pick<OrderRow, 'state' | 'kind'>, esim: Pick<EsimRow, 'status'>) =>
  order.kind === 'esim' && order.state === 'delivered' && esim.status !== 'cancelled' && esim.status !== 'expired';

/**
 * A delivered eSIM its buyer has not been shown yet (payment success, My eSIMs): what the 'eSIM
 * ready' push is for. `seenAt`: when they first saw it (seen_esims, migration 0044), if known.
 */
export const unseenDelivery = (order: Pick<OrderRow, 'kind' | 'state'>, seenAt?: Date | null) =>
  order.kind === 'esim' && order.state === 'delivered' && !seenAt;

/**
 * The data and validity alerts due for an eSIM now (pure: the engine claims and sends them).
 *
 * Data alerts only for a plan with one volume for its whole validity ('total'). A daily plan's
 * total is the day's volume (the partner's totalVolume for dataType 2 and 3, as its stand-in
 * answers), which comes back the next day, and an 'unlimited' one is a daily fair-use volume then
 * slowed: "80 % used" or "used up" of either would be false by the next morning. Both come at once
 * (the partner's figures lag): only 'used up'. Each data round (`esims.data_round`, one more with
 * each top-up) may have its own 80 % and used up.
 *
 * Online: the first data the eSIM used, which it can only use at its destination ('you're online
 * in Japan'), once. Only while it is news: not when the first reading already finds a data alert
 * or the last day due, which say more, nor after a top-up (a data round past the first), by
 * when the traveller knows (a top-up bought before the first use is rare).
 *
 * Still offline: the day after the trip start the buyer gave, an eSIM that has used no data (as
 * read from the partner within ESIM_USAGE_MAX_AGE_MS: a stale zero says nothing) gets the
 * get-connected checklist, once per trip start, and not once that news is stale.
 *
 * 1 day left: once the eSIM is installed (before, expires_at is the last day to install it, not
 * the end of its data), while its end is at most a day away and not past. Its round is that end:
 * a top-up that adds days moves it, and the alert may come again at the new end.
 */
export function dueAlerts(order: AlertOrder, esim: AlertEsim, dataKind: DataKind['kind'], now: Date): DueAlert[] {
  if (!alertable(order, esim)) return [];
  const facts = alertFacts(esim);
  const due: DueAlert[] = [];
  if (dataKind === 'total' && esim.total_bytes > 0) {
    const round = `data:${esim.data_round}`;
    if (esim.used_bytes >= esim.total_bytes || esim.status === 'used_up') due.push({ kind: 'data_used_up', round, facts });
    else if (esim.used_bytes >= ALERT_DATA_USED_SHARE * esim.total_bytes) due.push({ kind: 'data_80', round, facts });
  }
  const left = esim.expires_at ? esim.expires_at.getTime() - now.getTime() : NaN;
  if (esim.installed && left > 0 && left <= ALERT_VALIDITY_LEFT_MS) {
    due.push({ kind: 'validity_1_day', round: esim.expires_at!.toISOString(), facts });
  }
  if (esim.used_bytes > 0 && esim.data_round === 0 && due.length === 0) due.push({ kind: 'connected', round: 'first', facts });
  if (order.trip_starts_on && esim.used_bytes === 0 && esim.usage_checked_at) {
    const since = now.getTime() - tripCheckAt(order.trip_starts_on).getTime();
    const fresh = now.getTime() - esim.usage_checked_at.getTime() <= ESIM_USAGE_MAX_AGE_MS;
    if (fresh && since >= 0 && since < TRIP_CHECK_WITHIN_MS) due.push({ kind: 'not_connected', round: order.trip_starts_on, facts });
  }
  return due;
}

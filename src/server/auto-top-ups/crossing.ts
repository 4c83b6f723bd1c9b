import type { DataKind } from '../../catalogue/schema.ts';
import { AUTO_TOP_UP } from '../../config/auto-top-ups.ts';
import { alertable } from '../alerts/thresholds.ts';
import type { EsimRow } from '../esims/store.types.ts';
import type { OrderRow } from '../orders/store.types.ts';

/**
 * The crossing an eSIM is past, if any (pure): 10 % of its data left, or used up before that was
 * seen, in its data round (`esims.data_round`, one more with each top-up, so each top-up may be
 * followed by one more). Only an eSIM its buyer can still use (alertable: delivered, neither
 * cancelled nor expired), of a plan with one volume for its whole validity: a daily plan's volume
 * comes back the next morning (thresholds.ts says why), so nothing is bought for it.
 */
export function crossingOf(
  order: Pick<OrderRow, 'state' | 'kind'>,
  esim: Pick<EsimRow, 'status' | 'total_bytes' | 'used_bytes' | 'data_round'>,
  dataKind: DataKind['kind'],
): string | undefined {
  if (!alertable(order, esim) || dataKind !== 'total' || esim.total_bytes <= 0) return undefined;
  const left = esim.total_bytes - esim.used_bytes;
  return esim.status === 'used_up' || left <= AUTO_TOP_UP.leftShare * esim.total_bytes ? `data:${esim.data_round}` : undefined;
}

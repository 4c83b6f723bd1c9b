import { ESIM_USAGE_MAX_AGE_MS } from '../../config/constants.ts';
import type { UserLimiter } from '../limits.types.ts';
import { forAWaitingBuyer } from '../partner/partner.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { EsimAlerts } from './services.types.ts';
import type { EsimStore, OwnedEsim } from './store.types.ts';

export interface FreshUsageDeps {
  esims: EsimStore;
  partners: Partners;
  limits: UserLimiter;
  alerts: EsimAlerts;
}

/**
 * Data use older than 5 minutes is read again from the partner, in its batch call (10 eSIMs a
 * call, per partner), never one call per eSIM: states come with the partner's notifications, and its
 * DATA_USAGE notifications keep the figures fresh between reads. If it cannot answer, or the
 * user's reads of it ran out for the minute (limits.ts), the last known is shown.
 * What was read is checked for alerts after the answer (the same thresholds as the notifications').
 */
async function withFreshUsage(deps: FreshUsageDeps, owned: OwnedEsim[], uid: string): Promise<OwnedEsim[]> {
  const { esims, partners, limits, alerts } = deps;
  const now = Date.now();
  const stale = owned.flatMap(({ order, esim }) =>
    esim &&
    order.state === 'delivered' &&
    !['cancelled', 'expired'].includes(esim.status) &&
    (!esim.usage_checked_at || now - esim.usage_checked_at.getTime() > ESIM_USAGE_MAX_AGE_MS)
      ? [esim]
      : [],
  );
  if (stale.length === 0) return owned;
  if ((await limits.take('usage', uid)) !== undefined) return owned;
  try {
    for (const [partner, ofPartner] of Map.groupBy(stale, (esim) => esim.partner)) {
      const tranNos = ofPartner.map((esim) => esim.esim_tran_no);
      for (const usage of await partners.of(partner).usage(tranNos, forAWaitingBuyer())) await esims.recordUsage(partner, usage);
    }
  } catch (error) {
    console.error('esims: the partner could not refresh', stale.length, 'eSIMs:', error instanceof Error ? error.message : error);
    return owned;
  }
  void alerts.check(stale);
  return esims.ownedBy(uid);
}

/**
 * A user's eSIMs with fresh data use (withFreshUsage), one read of them at a time on this
 * instance: concurrent requests (a burst, several tabs) share it, and so its partner call for
 * stale data use.
 */
export function freshEsimReads(deps: FreshUsageDeps): (uid: string) => Promise<OwnedEsim[]> {
  const reading = new Map<string, Promise<OwnedEsim[]>>();
  return (uid) => {
    let read = reading.get(uid);
    if (!read) {
      read = deps.esims
        .ownedBy(uid)
        .then((owned) => withFreshUsage(deps, owned, uid))
        .finally(() => reading.delete(uid));
      reading.set(uid, read);
    }
    return read;
  };
}

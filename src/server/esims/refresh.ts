import type { EsimAlerts } from './services.types.ts';
import type { PartnerReadOptions } from '../partner/partner.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { EsimKey, EsimStore } from './store.types.ts';

/**
 * Reads these eSIMs' state and data use back from each one's partner and stores them. One query per
 * eSIM and usage calls per partner (the adapter splits the list to the partner's limit and keeps to
 * its request budget). With `alerts`, what was stored is checked for alerts due (not awaited: the
 * alerts engine tracks it). `read`: how the partner's reads take their turn.
 */
export async function refreshEsims(
  partners: Partners,
  esims: EsimStore,
  keys: readonly EsimKey[],
  options: { usage?: boolean; alerts?: Pick<EsimAlerts, 'check'>; read?: PartnerReadOptions } = {},
): Promise<void> {
  if (keys.length === 0) return;
  for (const { partner, esim_tran_no: esimTranNo } of keys) {
    const answer = await partners.of(partner).queryProfiles({ esimTranNo }, options.read);
    if (answer.status === 'ready') for (const profile of answer.profiles) await esims.refresh(partner, profile);
  }
  // esim/query already answers the data used, as of the partner's last measure: a hint's read skips the extra call.
  if (options.usage !== false) {
    for (const [partner, ofPartner] of Map.groupBy(keys, (key) => key.partner)) {
      const tranNos = ofPartner.map((key) => key.esim_tran_no);
      for (const usage of await partners.of(partner).usage(tranNos, options.read)) await esims.recordUsage(partner, usage);
    }
  }
  void options.alerts?.check(keys);
}

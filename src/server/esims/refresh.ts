import type { EsimAlerts } from './services.types.ts';
import type { EsimPartner, PartnerReadOptions } from '../partner/partner.types.ts';
import type { EsimStore } from './store.types.ts';

/**
 * Reads these eSIMs' state and data use back from the partner and stores them. One query per
 * eSIM and usage calls of at most 10 eSIMs each, the partner's limit (the adapter splits the list
 * and keeps to the partner's 8 requests a second). With `alerts`, what was stored is checked for
 * alerts due (not awaited: the alerts engine tracks it). `read`: how the partner's reads take their turn.
 */
export async function refreshEsims(
  partner: EsimPartner,
  esims: EsimStore,
  esimTranNos: readonly string[],
  options: { usage?: boolean; alerts?: Pick<EsimAlerts, 'check'>; read?: PartnerReadOptions } = {},
): Promise<void> {
  if (esimTranNos.length === 0) return;
  for (const esimTranNo of esimTranNos) {
    const answer = await partner.queryProfiles({ esimTranNo }, options.read);
    if (answer.status === 'ready') for (const profile of answer.profiles) await esims.refresh(profile);
  }
  // esim/query already answers the data used, as of the partner's last measure: a hint's read skips the extra call.
  if (options.usage !== false) for (const usage of await partner.usage(esimTranNos, options.read)) await esims.recordUsage(usage);
  void options.alerts?.check(esimTranNos);
}

import type { EsimView } from '../../contract/shop-api.ts';

/** Install steps at which the eSIM is on the phone. */
const ON_PHONE: ReadonlySet<string> = new Set(['installed', 'enabled', 'in_use']);

/**
 * Installed but no data yet: what usually stands between a traveller and working data (the line
 * off, another line for data, roaming off, a wrong APN). Once data flows it has done its work.
 * The install step says whether it is on the phone; without one (an eSIM the partner has said
 * nothing of yet, a copy saved before steps were sent) an active eSIM is an installed one. Usage
 * unknown counts as none: a checklist too many is cheaper than a traveller without data.
 */
export function needsConnecting(esim: Pick<EsimView, 'status' | 'usage'> & Partial<Pick<EsimView, 'installStep'>>): boolean {
  const onPhone = esim.installStep ? ON_PHONE.has(esim.installStep) : esim.status === 'active';
  const live = esim.status === 'active' || esim.status === 'ready';
  return onPhone && live && (esim.usage === null || esim.usage.usedBytes === 0);
}

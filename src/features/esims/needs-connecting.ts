import type { EsimView } from '../../contract/shop-api.ts';

/** Install steps at which the eSIM is on the phone. */
const ON_PHONE: ReadonlySet<string> = new Set(['installed', 'enabled', 'in_use']);

/**
 * Installed but no data yet: what usually stands between a traveller and working data (the line
 * off, another line for data, roaming off, a wrong APN). Once data flows it has done its work.
 * An active eSIM is installed; its install step, when known, must say it is still on the phone. Usage
 * unknown counts as none: a checklist too many is cheaper than a traveller without data.
 */
export function needsConnecting(esim: Pick<EsimView, 'status' | 'usage'> & Partial<Pick<EsimView, 'installStep'>>): boolean {
  // 'active' is installed by the shop's own account (view.ts); the step, when known, must agree (not deleted).
  const onPhone = esim.status === 'active' && (!esim.installStep || ON_PHONE.has(esim.installStep));
  return onPhone && (esim.usage === null || esim.usage.usedBytes === 0);
}

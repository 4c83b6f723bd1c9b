import type { EsimView } from '../../contract/shop-api.ts';

/**
 * Installed but no data yet: what usually stands between a traveller and working data (the line
 * off, another line for data, roaming off, a wrong APN). Once data flows it has done its work.
 * Usage unknown counts as none: a checklist too many is cheaper than a traveller without data.
 */
export const needsConnecting = (esim: Pick<EsimView, 'status' | 'usage'>) =>
  esim.status === 'active' && (esim.usage === null || esim.usage.usedBytes === 0);

import { ESIM_GO } from '../../src/server/partner/esim-go/config.ts';
import type { PartnerStandInModule } from '../partner-stand-in.types.ts';
import { startEsimGoStandIn } from './server.ts';

/** The stand-in's own API key: nothing secret, and never a production value. */
const API_KEY = 'stand-in-esim-go-api-key';

/** The environment that points the shop at an eSIM Go stand-in (esimGoModule.fromEnv reads it). */
export function esimGoStandInEnv(url: string, apiKey: string): Record<string, string> {
  return { ESIM_GO_BASE_URL: url, ESIM_GO_API_KEY: apiKey };
}

export const esimGoStandIn: PartnerStandInModule = {
  id: ESIM_GO,
  name: 'eSIM Go',
  defaultPort: 8791,
  async start({ port, apiUrl }) {
    const standIn = await startEsimGoStandIn({ port, apiKey: API_KEY, ...(apiUrl && { callbackUrl: `${apiUrl}/webhooks/${ESIM_GO}` }) });
    return { url: standIn.url, env: esimGoStandInEnv(standIn.url, API_KEY), close: () => standIn.close() };
  },
};

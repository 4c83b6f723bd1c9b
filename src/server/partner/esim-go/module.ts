import type { PartnerModule } from '../partner-module.types.ts';
import { createEsimGoPartner } from './adapter.ts';
import { ESIM_GO, ESIM_GO_BUDGET, esimGoConfigFromEnv } from './config.ts';
import { parseEsimGoNotification, verifyEsimGoSignature } from './notifications.ts';

/** eSIM Go in the shop: configured by ESIM_GO_API_KEY, its callbacks signed with that key (V3, X-Signature-SHA256). */
export const esimGoModule: PartnerModule = {
  id: ESIM_GO,
  fromEnv(env) {
    if (!env['ESIM_GO_API_KEY']?.trim()) return undefined;
    const config = esimGoConfigFromEnv(env);
    return {
      id: ESIM_GO,
      // Not its API key: that is a secret, and the budget's rows are not.
      budget: { account: ESIM_GO, limit: ESIM_GO_BUDGET, leaseMs: Math.max(120_000, 2 * (config.timeoutMs ?? 0)) },
      create: (budget) => createEsimGoPartner({ ...config, ...(budget && { budget }) }),
      callbacks: (raw, header) =>
        verifyEsimGoSignature(raw, header('x-signature-sha256'), config.apiKey) ? parseEsimGoNotification(raw) : 'unsigned',
    };
  },
};

import { esimGoModule } from './esim-go/module.ts';
import type { ConfiguredPartner, PartnerModule } from './partner-module.types.ts';

/** The partners the shop can run with beside eSIM Access (partner-module.types.ts): one line each. */
export const PARTNER_MODULES: readonly PartnerModule[] = [esimGoModule];

/** Those the environment configures, in the list's order. */
export function configuredPartners(env: Readonly<Record<string, string | undefined>>): ConfiguredPartner[] {
  return PARTNER_MODULES.flatMap((module) => module.fromEnv(env) ?? []);
}

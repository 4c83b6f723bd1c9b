import { esimGoStandIn } from './esim-go/local.ts';
import type { PartnerStandInModule } from './partner-stand-in.types.ts';

/** The stand-ins of the partner modules beside eSIM Access (partner-stand-in.types.ts): one line each. */
export const PARTNER_STAND_INS: readonly PartnerStandInModule[] = [esimGoStandIn];

import type { EsimPartner } from './partner.types.ts';
import type { Partners } from './registry.types.ts';

/** eSIM Access's id: every order and eSIM from before the registry (migration 0046) is there. */
export const ESIM_ACCESS = 'esim-access';
/** eSIM Go's id (issue 48): the second partner, when the shop is configured with it. */
export const ESIM_GO = 'esim-go';

/** The registry of the partners given, by id; the first is the one the catalogue is sold through. */
export function partnerRegistry(partners: Readonly<Record<string, EsimPartner>>): Partners {
  const ids = Object.keys(partners);
  if (ids.length === 0) throw new Error('The shop needs at least one eSIM partner');
  return {
    ids,
    nameOf: (id) => partners[id]?.name ?? id,
    of(id) {
      const partner = partners[id];
      if (!partner) throw new Error(`No eSIM partner "${id}" in this shop (it has ${ids.join(', ')})`);
      return partner;
    },
  };
}

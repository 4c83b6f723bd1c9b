/**
 * The shop's key for an eSIM Go eSIM (EsimProfile.esimTranNo): `<ICCID>:<customerRef>`.
 *
 * eSIM Go names an eSIM by its ICCID alone (guides/ordering: 'We identify this eSIM with an ICCID';
 * every /esims/{iccid} call) and documents no other id for it. The shop's key must not be an ICCID
 * alone (partner.types.ts: partners reuse ICCIDs), and eSIM Go does hand ICCIDs back: an eSIM left
 * without bundles and never installed goes through its 'returns process' and leaves the account
 * (Revoke applied Bundle), to be issued again later. So the key adds the order's transactionId, which
 * the adapter writes as the eSIM's customerRef once the shop holds the order (Update eSIM Details;
 * label.ts): unique per sale, and checkable against eSIM Go's state on every read (an ICCID issued
 * again to another order carries another customerRef, and the old key then answers 'not found').
 * An eSIM whose label is not written yet is read as the key's, and labelled then (esim-reads.ts).
 */
export interface EsimGoKey {
  iccid: string;
  /** The order's transactionId, the eSIM's customerRef once labelled ('' for an orphan, never labelled). */
  customerRef: string;
}

export function esimKey({ iccid, customerRef }: EsimGoKey): string {
  return `${iccid}:${customerRef}`;
}

/** The ICCID and customerRef of a key; undefined when it is not one of ours (an ICCID is digits, 18 to 22 of them). */
export function parseEsimKey(key: string): EsimGoKey | undefined {
  const at = key.indexOf(':');
  const iccid = at === -1 ? '' : key.slice(0, at);
  if (!/^\d{18,22}$/.test(iccid)) return undefined;
  return { iccid, customerRef: key.slice(at + 1) };
}

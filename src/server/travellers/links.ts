import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.types.ts';
import type { EsimStore, OwnedEsim } from '../esims/store.types.ts';

/**
 * A traveller's private link to their eSIM's page (issue 33, migration 0030): 32 random bytes as
 * base64url in the URL's fragment, so no server or proxy logs it; only its SHA-256 is stored. One
 * live link an eSIM: a new one revokes the last. It works until the eSIM ends (view.ts,
 * travellerEsimView) or the buyer revokes it.
 */

/** 32 bytes in base64url without padding. */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export const tokenSha256 = (token: string) => createHash('sha256').update(token).digest('hex');

/** A token's stored hash, or undefined for text that cannot be one of ours (looked up nowhere). */
export const wellFormedTokenSha256 = (token: string | undefined) => (token && TOKEN_FORM.test(token) ? tokenSha256(token) : undefined);

export async function revokeTravellerLinks(tx: Queryable, orderId: string): Promise<number> {
  const revoked = await tx.query('UPDATE traveller_links SET revoked_at = now() WHERE order_id = $1 AND revoked_at IS NULL RETURNING 1', [
    orderId,
  ]);
  return revoked.length;
}

/** A new link for the order's eSIM, the last one revoked; the token is returned once and never stored. */
export async function issueTravellerLink(tx: Queryable, orderId: string, emailedTo: string | null): Promise<string> {
  // Two at once (a double click, delivery beside the buyer's "Send a new link") take turns on the
  // order's row, so the second revokes the first's link instead of meeting it in the unique index.
  await tx.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [orderId]);
  await revokeTravellerLinks(tx, orderId);
  const token = randomBytes(32).toString('base64url');
  await tx.query('INSERT INTO traveller_links (order_id, token_sha256, emailed_to) VALUES ($1, $2, $3)', [
    orderId,
    tokenSha256(token),
    emailedTo,
  ]);
  return token;
}

/**
 * The eSIM `esimId` when `token` is its traveller's live link (issue 33): whoever holds the link may
 * buy it a top-up, signed in with their own account, and nothing more.
 */
export async function esimOfTravellerToken(
  esims: Pick<EsimStore, 'ofTravellerLink'>,
  token: string | undefined,
  esimId: string,
): Promise<OwnedEsim | undefined> {
  const sha256 = wellFormedTokenSha256(token);
  const found = sha256 ? await esims.ofTravellerLink(sha256) : undefined;
  return found?.order.id === esimId ? found : undefined;
}

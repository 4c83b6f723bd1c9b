import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SUPPORT_FORM_MAX_AGE_MS } from '../../contract/support-api.ts';

/**
 * The support form's spam check without a third-party script (issue 32 item 4): the form asks for a
 * token when it is shown, the time it was shown and a random nonce signed with the API's key, and a
 * request may come only `minMs` after that time (a person reads and types; a bot posts at once) and
 * within a day. Each token is good for one request (issue 46 item 3): the route records its nonce
 * as used (spendFormToken in store.ts), so one token no longer sends a day of requests.
 */
const sign = (secret: string, issuedAt: number, nonce: string) =>
  createHmac('sha256', `support-form:${secret}`).update(`${issuedAt}.${nonce}`).digest('base64url');

export function issueFormToken(secret: string, now = Date.now()): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${now}.${nonce}.${sign(secret, now, nonce)}`;
}

/** What a good token says: when the form was shown, and the nonce that names this token alone. */
export interface FormToken {
  issuedAt: number;
  nonce: string;
}

/** A form token that is ours, at least `minMs` old and not older than a day; undefined otherwise (whether used or not is the database's to say). */
export function readFormToken(secret: string, token: string, minMs: number, now = Date.now()): FormToken | undefined {
  const match = /^(\d{10,16})\.([\w-]{22})\.([\w-]{43})$/.exec(token);
  if (!match) return undefined;
  const issuedAt = Number(match[1]);
  const nonce = match[2]!;
  const expected = Buffer.from(sign(secret, issuedAt, nonce));
  const given = Buffer.from(match[3]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const age = now - issuedAt;
  return age >= minMs && age <= SUPPORT_FORM_MAX_AGE_MS ? { issuedAt, nonce } : undefined;
}

/** Whether a form token is ours, at least `minMs` old and not older than a day. */
export function formTokenGood(secret: string, token: string, minMs: number, now = Date.now()): boolean {
  return readFormToken(secret, token, minMs, now) !== undefined;
}

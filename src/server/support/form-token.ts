import { createHmac, timingSafeEqual } from 'node:crypto';
import { SUPPORT_FORM_MAX_AGE_MS } from '../../contract/support-api.ts';

/**
 * The support form's spam check without a third-party script (issue 32 item 4): the form asks for a
 * token when it is shown, the time it was shown signed with the API's key, and a request may come
 * only `minMs` after that time (a person reads and types; a bot posts at once) and within a day.
 */
const sign = (secret: string, issuedAt: number) =>
  createHmac('sha256', `support-form:${secret}`).update(String(issuedAt)).digest('base64url');

export function issueFormToken(secret: string, now = Date.now()): string {
  return `${now}.${sign(secret, now)}`;
}

/** Whether a form token is ours, at least `minMs` old and not older than a day. */
export function formTokenGood(secret: string, token: string, minMs: number, now = Date.now()): boolean {
  const match = /^(\d{10,16})\.([\w-]{43})$/.exec(token);
  if (!match) return false;
  const issuedAt = Number(match[1]);
  const expected = Buffer.from(sign(secret, issuedAt));
  const given = Buffer.from(match[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
  const age = now - issuedAt;
  return age >= minMs && age <= SUPPORT_FORM_MAX_AGE_MS;
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Tokens the shop signs for links in its e-mails (an alert's unsubscribe, an automatic top-up's
 * payment and its turning off): `<part>.<part>….<mac>`, each part base64url, the MAC an
 * HMAC-SHA256 of the parts under the shop's secret. What a token names is all it can be used for.
 */

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest();

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

export function signedToken(secret: string, parts: readonly string[]): string {
  const payload = parts.map(encode).join('.');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** The `count` parts a token was signed with; undefined for anything else (tampered, another key, garbage). */
export function readSignedToken(secret: string, token: string, count: number): string[] | undefined {
  const parts = token.split('.');
  if (parts.length !== count + 1 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return undefined;
  const signature = parts.pop()!;
  // Compared as text: base64url decoding ignores a last character's spare bits, the text does not.
  const given = Buffer.from(signature);
  const expected = Buffer.from(mac(secret, parts.join('.')).toString('base64url'));
  // timingSafeEqual needs equal lengths; a length that differs says nothing of the key.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return parts.map((part) => Buffer.from(part, 'base64url').toString('utf8'));
}

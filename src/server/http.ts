import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every failure of the shop API: `{ error: { code, message } }`, never cached. */
export const fail = (c: Context, status: ContentfulStatusCode, code: string, message: string, extra: Record<string, unknown> = {}) =>
  c.json({ error: { code, message, ...extra } }, status, { 'Cache-Control': 'no-store' });

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export const bearerToken = (c: Context) => /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];

/** Compares secrets in constant time. */
export const sameSecret = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { cors } from 'hono/cors';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every failure of the shop API: `{ error: { code, message } }`, never cached. */
export const fail = (c: Context, status: ContentfulStatusCode, code: string, message: string, extra: Record<string, unknown> = {}) =>
  c.json({ error: { code, message, ...extra } }, status, { 'Cache-Control': 'no-store' });

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export const bearerToken = (c: Context) => /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];

/** A key of this process only: the digests below cannot be computed ahead by anyone else. */
const DIGEST_KEY = randomBytes(32);
/** 32 bytes whatever the input; UTF-16 code units, so any string (non-ASCII, lone surrogates) has its own digest. */
const digest = (value: string) => createHmac('sha256', DIGEST_KEY).update(Buffer.from(value, 'utf16le')).digest();

/**
 * Compares secrets in constant time: fixed-length digests of both, so any input of any length
 * or script is merely unequal (no exception, and the time tells nothing of the secret's length).
 */
export const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/**
 * CORS for the site's pages only (locally the site and the API have different ports): a route's
 * methods and headers, the preflight kept 10 minutes.
 */
export const siteCors = (allowedOrigins: ReadonlySet<string>, options: Omit<NonNullable<Parameters<typeof cors>[0]>, 'origin'>) =>
  cors({ origin: (origin) => (allowedOrigins.has(origin) ? origin : null), maxAge: 600, ...options });

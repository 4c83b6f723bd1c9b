import { zValidator } from '@hono/zod-validator';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { ERROR_CODES, LangQuery, TopUpQuery } from '../contract/shop-api.ts';
import { fail } from './http.ts';

/**
 * The largest JSON body a route reads (the largest, an order, is under 2 KB): a larger one answers
 * 413 before anything is read into memory or parsed, declared (Content-Length) or streamed (chunked).
 */
export const MAX_JSON_BODY_BYTES = 16 * 1024;

/** What hono/validator takes for JSON. */
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Requests checked against the contract's schemas (src/contract/shop-api.ts) before a route runs,
 * answering the API's own `{ error: { code, message } }`: `c.req.valid('json' | 'query')` in the route.
 */

/**
 * The API reads a body as JSON whatever its Content-Type says; the validator reads only bodies
 * declared JSON. So a body that is no JSON is refused here, and one that is JSON under another
 * Content-Type is handed on declared as JSON.
 */
const readAsJson: MiddlewareHandler = async (c, next) => {
  const text = await c.req.text();
  try {
    JSON.parse(text);
  } catch {
    return fail(c, 400, ERROR_CODES.badRequest, 'The body must be JSON.');
  }
  if (!JSON_MEDIA_TYPE.test(c.req.header('content-type')?.split(';')[0]?.trim() ?? '')) {
    const headers = new Headers(c.req.raw.headers);
    headers.set('Content-Type', 'application/json');
    c.req.raw = new Request(c.req.url, { method: c.req.method, headers, body: text });
  }
  await next();
  return undefined;
};

/**
 * A JSON body of at most MAX_JSON_BODY_BYTES (else 413) valid by `schema`; else 400 naming the
 * fields, by their paths only: the message never echoes what was sent.
 */
export const jsonBody = <S extends z.ZodType>(schema: S) =>
  [
    bodyLimit({
      maxSize: MAX_JSON_BODY_BYTES,
      onError: (c) => fail(c, 413, ERROR_CODES.bodyTooLarge, `The body must be at most ${MAX_JSON_BODY_BYTES} bytes.`),
    }),
    readAsJson,
    zValidator('json', schema, (result, c) => {
      if (result.success) return undefined;
      const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || '(body)'))].slice(0, 5);
      return fail(c, 400, ERROR_CODES.badRequest, `Check these fields: ${fields.join(', ')}.`);
    }),
  ] as const;

/** `?lang=xx&currency=XXX` of a top-up list: a listed currency, or none. */
export const topUpQuery = zValidator('query', TopUpQuery, (result, c) =>
  result.success
    ? undefined
    : fail(c, 400, ERROR_CODES.badRequest, 'lang must be one of the site languages, currency one of the listed currencies.'),
);

/** `?lang=xx`, one of the site's languages (en when absent). */
export const langQuery = zValidator('query', LangQuery, (result, c) =>
  result.success ? undefined : fail(c, 400, ERROR_CODES.badRequest, 'lang must be one of the site languages.'),
);

import { zValidator } from '@hono/zod-validator';
import type { MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { ERROR_CODES, LangQuery } from '../contract/shop-api.ts';
import { fail } from './http.ts';

/**
 * Requests checked against the contract's schemas (src/contract/shop-api.ts) before a route runs,
 * answering the API's own `{ error: { code, message } }`: `c.req.valid('json' | 'query')` in the route.
 */

/** A body that is no JSON at all (read whatever its Content-Type says) is refused before its fields are checked. */
const parsableJson: MiddlewareHandler = async (c, next) => {
  try {
    JSON.parse(await c.req.text());
  } catch {
    return fail(c, 400, ERROR_CODES.badRequest, 'The body must be JSON.');
  }
  await next();
  return undefined;
};

/** A JSON body valid by `schema`; else 400 naming the fields, by their paths only: the message never echoes what was sent. */
export const jsonBody = <S extends z.ZodType>(schema: S) =>
  [
    parsableJson,
    zValidator('json', schema, (result, c) => {
      if (result.success) return undefined;
      const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || '(body)'))].slice(0, 5);
      return fail(c, 400, ERROR_CODES.badRequest, `Check these fields: ${fields.join(', ')}.`);
    }),
  ] as const;

/** `?lang=xx`, one of the site's languages (en when absent). */
export const langQuery = zValidator('query', LangQuery, (result, c) =>
  result.success ? undefined : fail(c, 400, ERROR_CODES.badRequest, 'lang must be one of the site languages.'),
);

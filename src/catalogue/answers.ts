import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** CDNs may keep answers an hour and serve stale ones for a day while revalidating. */
export const CACHE_CONTROL = 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400';

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

/** A catalogue answer: cacheable by CDNs, readable by any origin. */
export const catalogueJson = (c: Context, body: unknown) =>
  c.json(body, 200, { ...JSON_TYPE, 'Cache-Control': CACHE_CONTROL, 'Access-Control-Allow-Origin': '*', Vary: 'Accept-Encoding' });

/** A failure: `{ error: { code, message } }`, never cached. */
export const catalogueError = (
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  headers: Record<string, string> = {},
) => c.json({ error: { code, message } }, status, { ...JSON_TYPE, 'Cache-Control': 'no-store', ...headers });

/** Any path no route serves. */
export const noSuchEndpoint = (c: Context) => catalogueError(c, 404, 'not_found', 'No such endpoint.');

/** A loop, not /\/+$/: that regex backtracks quadratically on a long run of slashes. */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}

/**
 * The path the API routes by (Hono's `getPath`): the URL's pathname as a URL parser reads it ('..'
 * resolved, nothing decoded), without trailing slashes, so '/api/countries/' is '/api/countries'.
 */
export const routingPath = (request: Request) => withoutTrailingSlashes(new URL(request.url).pathname) || '/';

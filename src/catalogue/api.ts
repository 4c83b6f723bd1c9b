import { Hono } from 'hono';
import { noSuchEndpoint, catalogueError, routingPath, withoutTrailingSlashes } from './answers.ts';
import { cspReportRoutes, type CspReportOptions } from './csp-reports.ts';
import { catalogueRoutes } from './routes.ts';
import type { Snapshot } from './schema.ts';

export { CACHE_CONTROL } from './answers.ts';

/**
 * The catalogue API on its own (spec 7), without the shop: the catalogue's reads (./routes.ts:
 * GET /regions, /countries, /packages) and POST /csp-reports (./csp-reports.ts), the same Hono
 * routes the shop API mounts. A web-standard fetch handler, so it runs behind Node's HTTP server
 * (scripts/catalogue-api.ts) and in-process in the build (loader.ts). With a base path ('/api', as
 * a deployed function is mounted), only paths under it are served, matched by whole segment.
 * Errors answer JSON `{ "error": { "code", "message" } }`; an unknown path 404.
 *
 * The second argument is what a Node server passes beside the request (@hono/node-server's
 * bindings: the socket it came on), from which POST /csp-reports tells its clients apart.
 */
export type CatalogueHandler = (request: Request, connection?: unknown) => Promise<Response>;

export interface CatalogueApiOptions extends CspReportOptions {
  /** '/api' when mounted as a deployed function is. */
  basePath?: string;
}

export function createCatalogueApi(snapshot: Snapshot, options: CatalogueApiOptions = {}): CatalogueHandler {
  const app = new Hono({ getPath: routingPath })
    .basePath(withoutTrailingSlashes(options.basePath ?? '') || '/')
    .route('/', catalogueRoutes(snapshot))
    .route('/csp-reports', cspReportRoutes(options))
    .notFound(noSuchEndpoint)
    .onError((error, c) => {
      console.error('catalogue-api', c.req.method, error);
      return catalogueError(c, 500, 'internal_error', 'Something went wrong. Please try again.');
    });
  return async (request, connection) => app.fetch(request, connection as object | undefined);
}

import { createServer, type Server } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { CatalogueHandler } from '../../src/catalogue/api.ts';
import { listen } from './static-server.ts';

/** Serves the catalogue API's web-standard handler over Node's HTTP on 127.0.0.1. */
export async function serveCatalogue(
  handler: CatalogueHandler,
  port = 0,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const listener = getRequestListener(handler, {
    // A request that is no URL (a backslash in the path, a bad Host) answers the API's JSON 400,
    // not the adapter's empty one.
    errorHandler: (error) => {
      if (error instanceof RequestError) {
        return Response.json({ error: { code: 'bad_request', message: 'The request URL is malformed.' } }, { status: 400 });
      }
      console.error(error);
      return Response.json({ error: { code: 'internal_error', message: 'The catalogue API failed.' } }, { status: 500 });
    },
  });
  const server = createServer(listener);
  const url = await listen(server, port);
  return { url, server, close: () => new Promise((done) => server.close(() => done())) };
}

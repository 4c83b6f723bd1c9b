import { createServer, type Server } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import { listen } from './static-server.ts';

/** Serves a web-standard fetch handler (the shop API, the catalogue API) over Node's HTTP on 127.0.0.1. */
export async function serveApi(
  handler: (request: Request) => Response | Promise<Response>,
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
      return Response.json({ error: { code: 'internal_error', message: 'The API failed.' } }, { status: 500 });
    },
  });
  const server = createServer(listener);
  const url = await listen(server, port);
  return {
    url,
    server,
    // Keep-alive connections too, so a stopped server is really down (a test may restart it on its port).
    close: () =>
      new Promise((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

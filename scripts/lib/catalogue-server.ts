import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { CatalogueHandler } from '../../src/catalogue/api.ts';
import { listen } from './static-server.ts';

/** Serves the catalogue API's web-standard handler over Node's HTTP on 127.0.0.1. */
export async function serveCatalogue(
  handler: CatalogueHandler,
  port = 0,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(getRequestListener(handler));
  const url = await listen(server, port);
  return { url, server, close: () => new Promise((done) => server.close(() => done())) };
}

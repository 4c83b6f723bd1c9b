import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { CatalogueHandler } from '../../src/catalogue/api.ts';
import { listen } from '../../scripts/lib/static-server.ts';

/** Serves a catalogue handler over real HTTP on 127.0.0.1, as a deployed API would be reached. */
export async function serveCatalogue(handler: CatalogueHandler): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(getRequestListener(handler));
  const url = await listen(server, 0);
  return { url, server, close: () => new Promise((done) => server.close(() => done())) };
}

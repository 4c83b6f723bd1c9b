import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sirv from 'sirv';
import { notFoundPages } from '../../src/features/shell/not-found.ts';

/**
 * Serves a built site in-process, for checks that need no Firebase (link crawl, offline tests
 * that stop the server): clean URLs ('/store' -> store.html), a year's cache for hashed assets,
 * revalidation for everything else, and the not-found page of the path's language with status 404.
 */
export function createStaticServer(root: string): Server {
  const assets = sirv(root, {
    extensions: ['html'],
    etag: true,
    setHeaders(res, pathname) {
      res.setHeader('Cache-Control', pathname.startsWith('/_astro/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  return createServer((req, res) => {
    assets(req, res, async () => {
      res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
      res.end(await readFile(notFoundPage(root, new URL(req.url ?? '/', 'http://localhost').pathname)));
    });
  });
}

/** The nearest built not-found page in the path's language (see notFoundPages). */
function notFoundPage(root: string, pathname: string): string {
  const file = (page: string) => join(root, `${page}.html`);
  return (
    notFoundPages(pathname)
      .map(file)
      .find((candidate) => existsSync(candidate)) ?? join(root, '404.html')
  );
}

/** Starts the server on 127.0.0.1 and resolves with its base URL. */
export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(`http://${host}:${typeof address === 'object' && address ? address.port : port}`);
    });
  });
}

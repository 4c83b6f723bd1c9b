import type { Server } from 'node:http';
import { LinkChecker } from 'linkinator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStaticServer, listen } from '../../scripts/lib/static-server.ts';
import { DIST, SITE } from '../support/dist.ts';

/**
 * Crawls the built site from its home page over HTTP, the way a visitor or a search engine
 * would: every internal link, asset, canonical and hreflang URL (rewritten from the public
 * site URL to the local server) and #fragment must resolve. External links are not fetched.
 */
let server: Server;
let base: string;

beforeAll(async () => {
  server = createStaticServer(DIST);
  base = await listen(server, 0);
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe('link check', () => {
  it('every internal link in every language resolves', async () => {
    const checker = new LinkChecker();
    const result = await checker.check({
      path: `${base}/`,
      recurse: true,
      checkFragments: true,
      concurrency: 8,
      retryErrors: true,
      retryErrorsCount: 3,
      urlRewriteExpressions: [{ pattern: new RegExp(`^${SITE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), replacement: base }],
      linksToSkip: async (link) => !link.startsWith(base),
    });
    const broken = result.links.filter((l) => l.state === 'BROKEN').map((l) => `${l.status} ${l.url} (on ${l.parent})`);
    expect(broken).toEqual([]);
    // The crawl really walked the site: every language's home and its pages.
    const pagesSeen = new Set(result.links.filter((l) => l.state === 'OK').map((l) => new URL(l.url).pathname));
    expect(pagesSeen.size).toBeGreaterThanOrEqual(48);
  });
});

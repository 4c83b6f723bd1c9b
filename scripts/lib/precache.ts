import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Precache {
  /** False when the build has no sw.js. */
  present: boolean;
  entries: number;
  /** The precached URLs, relative to the site root as the manifest lists them ('_astro/x.js'). */
  urls: string[];
  /** Sum of the precached files' sizes as built (uncompressed). */
  raw: number;
  /** Manifest entries with no file in the build (they would fail the service worker's install). */
  missing: string[];
  /** The largest entries, for a report that says what fills the precache. */
  largest: { url: string; raw: number }[];
}

/**
 * Reads the precache manifest Workbox injected into the built service worker (entries such as
 * {"revision":"..","url":"_astro/x.js"}, keys quoted or not, in either order) and adds up the
 * sizes of the files it lists.
 */
export function precache(dist: string, worker = 'sw.js'): Precache {
  const file = join(dist, worker);
  if (!existsSync(file)) return { present: false, entries: 0, urls: [], raw: 0, missing: [], largest: [] };
  const code = readFileSync(file, 'utf8');
  const urls = new Set<string>();
  for (const [entry] of code.matchAll(/\{[^{}]*?["'`]?revision["'`]?\s*:[^{}]*\}/g)) {
    const url = /["'`]?url["'`]?\s*:\s*["'`]([^"'`]+)["'`]/.exec(entry)?.[1];
    if (url) urls.add(url);
  }
  const sized = [...urls].map((url) => {
    const path = join(dist, decodeURIComponent(new URL(url, 'http://x/').pathname));
    return { url, raw: existsSync(path) ? statSync(path).size : -1 };
  });
  return {
    present: true,
    entries: sized.length,
    urls: [...urls],
    raw: sized.reduce((total, entry) => total + Math.max(entry.raw, 0), 0),
    missing: sized.filter((entry) => entry.raw < 0).map((entry) => entry.url),
    largest: sized.sort((a, b) => b.raw - a.raw).slice(0, 10),
  };
}

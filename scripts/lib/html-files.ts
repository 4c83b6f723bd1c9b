import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every HTML file of a built site, as full paths: the pages the checks, the CSP hashes and the benchmark read. */
export function* htmlFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* htmlFiles(full);
    else if (entry.name.endsWith('.html')) yield full;
  }
}

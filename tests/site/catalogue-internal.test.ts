import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { PUBLIC_PACKAGE_FIELDS } from '../../src/catalogue/schema.ts';
import { DIST } from '../support/dist.ts';

/**
 * The catalogue's internal fields never reach a buyer (issue 48): no partner's code for a plan,
 * no wholesale price and no partner offers in any built page, plan data (/plans/{id}.json) or
 * script. The API's answers are checked in src/catalogue/api.test.ts; this is what the build made of them.
 */

/** Every text file of the build. */
function* textFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* textFiles(full);
    else if (/\.(html|json|js|mjs|xml|txt|webmanifest)$/.test(entry.name)) yield full;
  }
}

describe("the built site and the catalogue's internal fields", () => {
  const snapshot = embeddedSnapshot();

  it('publishes no partner code, wholesale price or partner offer in any page, plan data or script', () => {
    // Both partners sell plans here: every offer's code is looked for, not only the one prices are made from.
    expect(snapshot.packages.some((p) => p.offers.length > 1)).toBe(true);
    const codes = new Set(snapshot.packages.flatMap((p) => [p.partnerCode, ...p.offers.map((o) => o.partnerCode)]));
    const found: string[] = [];
    let files = 0;
    for (const file of textFiles(DIST)) {
      files++;
      const text = readFileSync(file, 'utf8');
      const where = relative(DIST, file);
      // Scripts may name the fields (the back office shows an order's partner code to operators): data may not.
      const data = !/\.m?js$/.test(file);
      for (const field of (data && text.match(/wholesaleUsdE4|partnerCode|esim-access|esim-go/g)) || []) found.push(`${where}: ${field}`);
      for (const token of new Set(text.match(/\w{6,}/g))) if (codes.has(token)) found.push(`${where}: partner code ${token}`);
    }
    expect(files).toBeGreaterThan(1000);
    expect(found.slice(0, 20)).toEqual([]);
  });

  it("gives checkout each plan's contract fields only, never its offers", () => {
    const plans = readdirSync(join(DIST, 'plans')).filter((f) => f.endsWith('.json'));
    expect(plans.length).toBe(snapshot.packages.length);
    const keys = new Set(plans.flatMap((f) => Object.keys(JSON.parse(readFileSync(join(DIST, 'plans', f), 'utf8')) as object)));
    // The contract's fields and the destination the page is for.
    expect([...keys].sort()).toEqual([...PUBLIC_PACKAGE_FIELDS, 'destination'].sort());
  });
});

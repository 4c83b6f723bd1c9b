import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, inlineHashes, parsePolicy, readFirebaseConfig } from '../../scripts/lib/csp.ts';
import { builtPages } from '../support/dist.ts';

/** firebase.json against the build: what the deployed site will send (headers are exercised over HTTP in tests/e2e/hosting.spec.ts). */
const config = readFirebaseConfig();
const policy = parsePolicy(contentSecurityPolicy(config));
const pages = builtPages();

describe('Content-Security-Policy of firebase.json', () => {
  it('allows no inline script or eval, and nobody may frame the site', () => {
    expect(policy.get('script-src')).not.toContain("'unsafe-inline'");
    expect(policy.get('script-src')).not.toContain("'unsafe-eval'");
    expect(policy.get('style-src')).not.toContain("'unsafe-inline'");
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
  });

  it.each(pages.map((p) => [p.path, p.html] as const))('%s: every inline script and style is allowed by its hash', (_, html) => {
    const { scripts, styles } = inlineHashes(html);
    // A missing hash means Astro's inline code changed: run `npm run build && npm run csp`.
    for (const hash of scripts) expect(policy.get('script-src'), 'npm run csp').toContain(hash);
    for (const hash of styles) expect(policy.get('style-src'), 'npm run csp').toContain(hash);
    // Hashes do not cover style attributes, which the policy would block.
    expect(html).not.toMatch(/<[^>]+\sstyle="/);
  });
});

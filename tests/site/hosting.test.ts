import { loadEnv } from 'vite';
import { describe, expect, it } from 'vitest';
import { firebaseAuthDomain } from '../../src/config/env.ts';
import { OPS_LOCALES } from '../../src/config/site.ts';
import {
  CSP_REPORT_PATH,
  inlineHashes,
  pageKind,
  parsePolicy,
  policyOf,
  policyRules,
  readFirebaseConfig,
  type PageKind,
} from '../../scripts/lib/csp.ts';
import { builtPages } from '../support/dist.ts';
import { policiesFor } from '../support/hosting.ts';

/** firebase.json against the build: what the deployed site will send (headers are exercised over HTTP in tests/e2e/hosting.spec.ts). */
const config = readFirebaseConfig();
const pages = builtPages();
const KINDS: PageKind[] = ['signIn', 'account', 'content'];
const policy = (kind: PageKind) => parsePolicy(policyOf(kind, config));
/** The auth domain the deployment is configured with (environment or .env; the demo project's without one). */
const AUTH_DOMAIN = firebaseAuthDomain(loadEnv('production', process.cwd(), ''));

describe('Content-Security-Policy of firebase.json', () => {
  it.each(KINDS)('%s pages: no inline script or eval, and nobody may frame the site', (kind) => {
    expect(policy(kind).get('script-src')).not.toContain("'unsafe-inline'");
    expect(policy(kind).get('script-src')).not.toContain("'unsafe-eval'");
    expect(policy(kind).get('style-src')).not.toContain("'unsafe-inline'");
    expect(policy(kind).get('object-src')).toEqual(["'none'"]);
    expect(policy(kind).get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy(kind).get('default-src')).toEqual(["'self'"]);
  });

  it('every path gets exactly one policy, the one of its kind of page', () => {
    // The two URL forms of a language's home and an unknown path (served the 404 page) too.
    const paths = [...pages.map((p) => p.path), '/de', '/ar/no-such-page', '/package/xx', '/_astro/app.js', '/sw.js'];
    for (const path of paths) expect(policiesFor(config, path), path).toEqual([policyOf(pageKind(path), config)]);
    expect(pages.filter((p) => pageKind(p.path) === 'signIn')).toHaveLength(3 * 12);
    // Five account pages in every language (the cart, checkout, payment success, My eSIMs, history), and the back office in its two (issue 30).
    expect(pages.filter((p) => pageKind(p.path) === 'account')).toHaveLength(5 * 12 + OPS_LOCALES.length);
  });

  it(`only the pages that sign in load Google's sign-in helper, and frames only from the auth domain ${AUTH_DOMAIN}`, () => {
    expect(policy('signIn').get('script-src')).toContain('https://apis.google.com');
    expect(policy('signIn').get('frame-src')).toEqual([`https://${AUTH_DOMAIN}`]);
    for (const kind of ['account', 'content'] as const) {
      expect(policy(kind).get('script-src')).not.toContain('https://apis.google.com');
      expect(policy(kind).get('frame-src')).toEqual(["'none'"]);
    }
    // The other account pages read the session from Firebase Auth; content pages talk to nobody else.
    for (const host of ['https://identitytoolkit.googleapis.com', 'https://securetoken.googleapis.com']) {
      expect(policy('signIn').get('connect-src')).toContain(host);
      expect(policy('account').get('connect-src')).toContain(host);
    }
    expect(policy('content').get('connect-src')).toEqual(["'self'"]);
    for (const { policy: value } of policyRules(config)) expect(value).not.toContain('*');
  });

  it('violations are reported to our API: report-to with its endpoint, report-uri for other browsers', () => {
    for (const kind of KINDS) {
      expect(policy(kind).get('report-to')).toEqual(['csp']);
      expect(policy(kind).get('report-uri')).toEqual([CSP_REPORT_PATH]);
    }
    for (const rule of config.hosting.headers.filter((r) => r.headers.some((h) => h.key === 'Content-Security-Policy'))) {
      expect(rule.headers, rule.source).toContainEqual({ key: 'Reporting-Endpoints', value: `csp="${CSP_REPORT_PATH}"` });
    }
    // In production the API is the Cloud Run service behind /api/**, in the EU (deploy/cloud-run-service.yaml).
    expect(config.hosting.rewrites).toContainEqual({ source: '/api/**', run: { serviceId: 'esim-shop-api', region: 'europe-west3' } });
  });

  it.each(pages.map((p) => [p.path, p.html] as const))('%s: every inline script and style is allowed by its hash', (path, html) => {
    const { scripts, styles } = inlineHashes(html);
    const own = policy(pageKind(path));
    // A missing hash means Astro's inline code changed: run `npm run build && npm run csp`.
    for (const hash of scripts) expect(own.get('script-src'), 'npm run csp').toContain(hash);
    for (const hash of styles) expect(own.get('style-src'), 'npm run csp').toContain(hash);
    // Hashes do not cover style attributes, which the policy would block.
    expect(html).not.toMatch(/<[^>]+\sstyle="/);
  });
});

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { GUARDED_ROUTES, OPS_ROUTE, SIGN_IN_ROUTES } from '../../src/config/site.ts';
import { splitLocale } from '../../src/i18n/paths.ts';
import { htmlFiles } from './html-files.ts';

/**
 * The Content-Security-Policies of firebase.json, the deployment's hosting configuration
 * (`npm run csp` writes them). Three policies, each on its own pages:
 * - sign-in pages (login, sign-up, profile): Firebase Auth's hosts, Google's popup helper from
 *   apis.google.com and frames from the configured auth domain only;
 * - the other account pages (checkout, payment success, my eSIMs, history) and the back office
 *   (/ops): Firebase Auth's hosts for the session, no apis.google.com, no frames;
 * - every other path (content pages, assets, the 404 page): the site itself, no frames.
 * Scripts and styles that Astro writes inline are allowed by their sha256 hash, never by
 * 'unsafe-inline'. Violations are reported to our API (report-to, report-uri for browsers
 * without the Reporting API).
 */
export const FIREBASE_CONFIG = 'firebase.json';

/** Where browsers send violation reports: the shop API (Cloud Run) behind Hosting's /api/** rewrite. */
export const CSP_REPORT_PATH = '/api/csp-reports';
/** The Reporting-Endpoints name the policies' report-to refers to. */
const REPORT_GROUP = 'csp';

export interface Header {
  key: string;
  value: string;
}

export interface HeaderRule {
  source: string;
  headers: Header[];
}

export interface FirebaseConfig {
  hosting: { headers: HeaderRule[]; rewrites?: { source: string; run?: { serviceId: string; region?: string } }[] };
  emulators: { auth: { host: string; port: number }; hosting: { host: string; port: number } };
}

export function readFirebaseConfig(path = FIREBASE_CONFIG): FirebaseConfig {
  return JSON.parse(readFileSync(path, 'utf8'));
}

export type PageKind = 'signIn' | 'account' | 'content';

const names = (routes: readonly string[]) => routes.map((route) => route.slice(1)).join('|');
const SIGN_IN = names(SIGN_IN_ROUTES);
/** Pages that use a session without signing in on them: the guarded pages and the back office. */
const ACCOUNT_ROUTES = [...GUARDED_ROUTES.filter((route) => !SIGN_IN_ROUTES.includes(route)), OPS_ROUTE];
const ACCOUNT = names(ACCOUNT_ROUTES);

/**
 * Which paths get which policy, by the last path segment so one glob covers all 12 languages
 * ('/login', '/de/login'). The globs do not overlap on any page's path: a path matching two
 * rules would get two policies and a browser enforces both (the Hosting emulator lets the
 * later rule win, production Hosting documents no order). The one overlap is a sign-in or
 * account path with a trailing slash ('/login/'), which Hosting answers with the 404 page: both
 * policies together still allow what that page needs. '**' does not match '/', hence its own
 * rule. A 404 under such a name ('/package/login') gets that page's policy.
 */
export const POLICY_SOURCES: Record<PageKind, string[]> = {
  signIn: [`**/@(${SIGN_IN})`],
  account: [`**/@(${ACCOUNT})`],
  content: ['/', `**/!(${SIGN_IN}|${ACCOUNT})`],
};

/** The kind of page a path is, by its route in any language: what POLICY_SOURCES must give it. */
export function pageKind(pathname: string): PageKind {
  const { route } = splitLocale(pathname);
  if (SIGN_IN_ROUTES.includes(route)) return 'signIn';
  return ACCOUNT_ROUTES.includes(route) ? 'account' : 'content';
}

/** The three policies for a build's inline hashes and a Firebase project's auth domain. */
export function policies(hashes: { scripts: string[]; styles: string[] }, authDomain: string): Record<PageKind, string> {
  const policy = (extra: { script?: string[]; connect?: string[]; frame?: string[] }) =>
    serializePolicy(
      new Map([
        ['default-src', ["'self'"]],
        ['script-src', ["'self'", ...hashes.scripts, ...(extra.script ?? [])]],
        ['style-src', ["'self'", ...hashes.styles]],
        ['img-src', ["'self'", 'data:']],
        ['font-src', ["'self'"]],
        ['connect-src', ["'self'", ...(extra.connect ?? [])]],
        ['frame-src', extra.frame ?? ["'none'"]],
        ['manifest-src', ["'self'"]],
        ['worker-src', ["'self'"]],
        ['object-src', ["'none'"]],
        ['base-uri', ["'self'"]],
        ['form-action', ["'self'"]],
        ['frame-ancestors', ["'none'"]],
        ['report-uri', [CSP_REPORT_PATH]],
        ['report-to', [REPORT_GROUP]],
      ]),
    );
  const firebaseAuth = ['https://identitytoolkit.googleapis.com', 'https://securetoken.googleapis.com'];
  return {
    signIn: policy({ script: ['https://apis.google.com'], connect: firebaseAuth, frame: [`https://${authDomain}`] }),
    account: policy({ connect: firebaseAuth }),
    content: policy({}),
  };
}

const isPolicy = (header: Header) => header.key === 'Content-Security-Policy';
const isPolicyHeader = (header: Header) => isPolicy(header) || header.key === 'Reporting-Endpoints';

/** The policy rules of a configuration: source glob and policy, in order. */
export function policyRules(config: FirebaseConfig): { source: string; policy: string }[] {
  return config.hosting.headers.flatMap((rule) =>
    rule.headers.filter(isPolicy).map((header) => ({ source: rule.source, policy: header.value })),
  );
}

/** The policy firebase.json gives one kind of page. */
export function policyOf(kind: PageKind, config: FirebaseConfig = readFirebaseConfig()): string {
  const rule = policyRules(config).find(({ source }) => source === POLICY_SOURCES[kind][0]);
  if (!rule) throw new Error(`${FIREBASE_CONFIG} has no policy for ${POLICY_SOURCES[kind][0]}: run npm run csp`);
  return rule.policy;
}

/** Replaces a configuration's policy rules with these policies, each with its reporting endpoint. */
export function setPolicies(config: FirebaseConfig, byKind: Record<PageKind, string>): FirebaseConfig {
  const others = config.hosting.headers
    .map((rule) => ({ ...rule, headers: rule.headers.filter((header) => !isPolicyHeader(header)) }))
    .filter((rule) => rule.headers.length > 0);
  const rules = (Object.keys(POLICY_SOURCES) as PageKind[]).flatMap((kind) =>
    POLICY_SOURCES[kind].map((source) => ({
      source,
      headers: [
        { key: 'Content-Security-Policy', value: byKind[kind] },
        // Where report-to sends reports.
        { key: 'Reporting-Endpoints', value: `${REPORT_GROUP}="${CSP_REPORT_PATH}"` },
      ],
    })),
  );
  // After the rule for every path, before the caching rules: the order only matters to a reader.
  config.hosting.headers = [...others.slice(0, 1), ...rules, ...others.slice(1)];
  return config;
}

/** A policy as directive name -> sources: "script-src 'self' x" -> { 'script-src': ["'self'", 'x'] }. */
export function parsePolicy(policy: string): Map<string, string[]> {
  const directives = policy
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .filter((parts) => parts[0]);
  return new Map(directives.map(([name, ...sources]) => [name!, sources]));
}

export const serializePolicy = (directives: Map<string, string[]>) =>
  [...directives].map(([name, sources]) => [name, ...sources].join(' ')).join('; ');

/** Changes some directives of a policy: each gets the sources `change` returns for its current ones (none: dropped). */
export function editPolicy(policy: string, changes: Record<string, (sources: string[]) => string[]>): string {
  const directives = parsePolicy(policy);
  for (const [name, change] of Object.entries(changes)) {
    const sources = change(directives.get(name) ?? []);
    if (sources.length > 0) directives.set(name, sources);
    else directives.delete(name);
  }
  return serializePolicy(directives);
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The hashes of the inline scripts a page runs (JSON-LD is data, not script) and of its inline styles. */
export function inlineHashes(html: string): { scripts: string[]; styles: string[] } {
  const scripts = [...html.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter(([, attributes]) => !/type="application\/ld\+json"/.test(attributes!))
    .map(([, , body]) => sha256(body!));
  const styles = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map(([, body]) => sha256(body!));
  return { scripts, styles };
}

/** Every distinct inline script and style hash of a built site. */
export function siteInlineHashes(dist: string): { scripts: string[]; styles: string[] } {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  for (const file of htmlFiles(dist)) {
    const hashes = inlineHashes(readFileSync(file, 'utf8'));
    hashes.scripts.forEach((hash) => scripts.add(hash));
    hashes.styles.forEach((hash) => styles.add(hash));
  }
  return { scripts: [...scripts].sort(), styles: [...styles].sort() };
}

/** Rewrites firebase.json's policies for a build's inline hashes and the configured auth domain. */
export function updatePolicies(dist: string, authDomain: string, path = FIREBASE_CONFIG): FirebaseConfig {
  const config = setPolicies(readFirebaseConfig(path), policies(siteInlineHashes(dist), authDomain));
  writeFileSync(path, JSON.stringify(config, null, 2) + '\n');
  return config;
}

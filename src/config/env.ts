import { siteUrl } from './site.ts';

/**
 * The build's configuration rules (docs/going-live.md: Configuration). astro.config.mjs declares every
 * variable to astro:env (`env.schema`) and checks them here before a build; the browser reads
 * them through `astro:env/client`. Nothing here imports Node or Astro, so pages may use it.
 */

/** A real Firebase project's web configuration: all four, or none for the Auth emulator. */
export const FIREBASE_WEB_VARIABLES = [
  'PUBLIC_FIREBASE_API_KEY',
  'PUBLIC_FIREBASE_AUTH_DOMAIN',
  'PUBLIC_FIREBASE_PROJECT_ID',
  'PUBLIC_FIREBASE_APP_ID',
] as const;

/** The project the Auth emulator serves when no Firebase project is configured (offline, local accounts). */
export const DEMO_FIREBASE_CONFIG = { apiKey: 'demo-key', authDomain: 'demo-esim.firebaseapp.com', projectId: 'demo-esim' } as const;

export const DEFAULT_AUTH_EMULATOR_URL = 'http://127.0.0.1:9099';

type Env = Record<string, string | undefined>;

/** Names reserved for documentation and testing (RFC 2606, RFC 6761): nobody's site lives there. */
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'];
const RESERVED_TLDS = ['example', 'test', 'invalid', 'localhost'];

/**
 * Whether a site URL is where real visitors arrive. Not real: the default (unset) URL, the
 * reserved example domains and their subdomains (esim.example.com, shop.example.org), the
 * .example, .test, .invalid and .localhost names, localhost and loopback addresses
 * (127.0.0.0/8, [::1]). Everything else is real, shop.example-travel.com included.
 */
export function isRealOrigin(origin: string): boolean {
  const host = new URL(origin).hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host)) return false;
  if (RESERVED_DOMAINS.some((domain) => host === domain || host.endsWith(`.${domain}`))) return false;
  return !RESERVED_TLDS.includes(host.slice(host.lastIndexOf('.') + 1));
}

const value = (env: Env, name: string) => env[name]?.trim() || undefined;

/** The Firebase web variables a build lacks: none when all four or (off a real origin) none are set. */
export function missingFirebaseVariables(env: Env): string[] {
  const missing = FIREBASE_WEB_VARIABLES.filter((name) => !value(env, name));
  const noneSet = missing.length === FIREBASE_WEB_VARIABLES.length;
  return noneSet && !isRealOrigin(siteUrl(env)) ? [] : missing;
}

/**
 * Stops a build that would publish a broken or emulator-bound sign-in: a partial Firebase
 * configuration anywhere, and none at all on a real origin. The message names every missing variable.
 */
export function checkBuildEnv(env: Env): void {
  const missing = missingFirebaseVariables(env);
  if (missing.length === 0) return;
  const site = siteUrl(env);
  const why = isRealOrigin(site)
    ? `PUBLIC_SITE_URL is ${site}, a real origin, so sign-in needs a real Firebase project, not the Auth emulator`
    : 'A Firebase web configuration needs all four variables (or none, for the Auth emulator)';
  throw new Error(`${why}. Missing: ${missing.join(', ')} (docs/going-live.md: Configuration).`);
}

/** The domain that serves Firebase's sign-in frames: the configured project's, or the demo project's. */
export const firebaseAuthDomain = (env: Env) => value(env, 'PUBLIC_FIREBASE_AUTH_DOMAIN') ?? DEMO_FIREBASE_CONFIG.authDomain;

/** The shop API as the local tools run it (scripts/lib/emulators.ts): its production path on its own port. */
export const LOCAL_API_BASE_URL = 'http://127.0.0.1:8788/api';

/**
 * Where the pages reach the shop API: PUBLIC_API_BASE_URL, else `/api` on a real origin (the
 * Cloud Run service behind Hosting's rewrite, same origin) and the local API everywhere else.
 */
export const apiBaseUrl = (env: Env) => value(env, 'PUBLIC_API_BASE_URL') ?? (isRealOrigin(siteUrl(env)) ? '/api' : LOCAL_API_BASE_URL);

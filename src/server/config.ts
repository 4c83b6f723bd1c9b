import { isRealOrigin } from '../config/env.ts';
import { DEFAULT_SITE_URL } from '../config/site.ts';
import { DEFAULT_DATA_DIR } from './db/pglite.ts';
import { ESIM_ACCESS_BASE_URL, type EsimAccessConfig } from './partner/esim-access/config.ts';
import type { ConfiguredPartner } from './partner/partner-module.types.ts';
import { configuredPartners } from './partner/partner-modules.ts';

/**
 * The shop API's configuration, from the environment (docs/going-live.md). Production needs the
 * Stripe keys, the webhook secret and a database; `npm start` and the tests pass the stand-ins'.
 */
export interface ShopConfig {
  /** A PostgreSQL server; unset: PGlite in-process with its data in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
  /** Only for the local stand-in: where the Stripe SDK sends its calls. */
  stripeApiUrl: string | undefined;
  /** How long the Stripe SDK waits for an answer before it gives up (and retries); unset: the SDK's 80 s. */
  stripeTimeoutMs: number | undefined;
  siteUrl: string;
  firebaseProjectId: string;
  allowedOrigins: string[];
  /** The eSIM partner's account (eSIM Access). */
  partner: EsimAccessConfig;
  /** The secret path segment of the partner webhook URL registered in its console: /api/webhooks/partner/<token>. */
  partnerWebhookToken: string;
  /** The partners beside eSIM Access whose accounts are set (partner-modules.ts: eSIM Go by ESIM_GO_API_KEY); their callbacks: /api/webhooks/<id>. */
  morePartners: ConfiguredPartner[];
  /** The order e-mail's SMTP server and sender. */
  smtpUrl: string;
  mailFrom: string;
  /** Where the provider's own alerts go (the partner's balance below LOW_BALANCE_USD); unset: only the log says so. */
  providerAlertEmail: string | undefined;
  /** The scheduler's bearer token for POST /api/jobs/reconcile; unset: only the in-process timer runs the job. */
  reconcileToken: string | undefined;
  /** The scheduler's bearer token for POST /api/jobs/audit (the hourly order audit); unset: the route is not there. */
  auditToken: string | undefined;
  /** Proxies in front of the API that append to X-Forwarded-For (0: clients connect directly); POST /api/csp-reports limits each client by its address. */
  trustedProxies: number;
  /** The port main.ts listens on ($PORT, as Cloud Run sets it; 8080 by default). */
  port: number;
  /** Where browsers and mail programs reach this API (the alert e-mails' one-click unsubscribe); default: the site's /api. */
  publicApiUrl: string;
  /** Web Push (VAPID, RFC 8292): the key pair (`npx web-push generate-vapid-keys`) and a contact for push services (mailto: or https:). */
  vapid: VapidConfig;
  /** The key that signs the alert e-mails' unsubscribe tokens (any long random string; changing it voids the links already sent). */
  alertsSecret: string;
  /** Dev and tests only: the push-service stand-in's origin (http on loopback), a push endpoint besides the browsers' push services. */
  pushServiceStandInOrigin: string | undefined;
}

export interface VapidConfig {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/** The environment the shop API is configured from (process.env, or a test's own). */
export type Env = Record<string, string | undefined>;

/** The variables the shop API cannot start without, anywhere (production needs more: preflight.ts). */
export const REQUIRED_VARIABLES = [
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'ESIM_ACCESS_CODE',
  'ESIM_ACCESS_SECRET',
  'PARTNER_WEBHOOK_TOKEN',
  'SMTP_URL',
  'MAIL_FROM',
  'VAPID_PUBLIC_KEY',
  'VAPID_PRIVATE_KEY',
  'ALERTS_SECRET',
] as const;

/** Every variable of the environment the shop API reads is read here. */
export function shopConfigFromEnv(env: Env = process.env): ShopConfig {
  const get = (name: string) => env[name]?.trim() || undefined;
  const missing: string[] = REQUIRED_VARIABLES.filter((name) => !get(name));
  const firebaseProjectId =
    get('FIREBASE_PROJECT_ID') ?? get('GOOGLE_CLOUD_PROJECT') ?? (get('FIREBASE_AUTH_EMULATOR_HOST') ? 'demo-esim' : undefined);
  if (!firebaseProjectId) missing.push('FIREBASE_PROJECT_ID');
  const trustedProxies = Number(get('TRUSTED_PROXIES') ?? 0);
  if (!Number.isInteger(trustedProxies) || trustedProxies < 0)
    throw new Error('TRUSTED_PROXIES must be a whole number of proxies, 0 or more (docs/going-live.md).');
  const timeout = (name: string) => {
    const value = get(name);
    if (value === undefined) return undefined;
    const ms = Number(value);
    if (!Number.isInteger(ms) || ms <= 0) throw new Error(`${name} must be a whole number of milliseconds above 0 (docs/going-live.md).`);
    return ms;
  };
  const port = Number(get('PORT') ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('PORT must be a port number (docs/going-live.md).');
  const stripeTimeoutMs = timeout('STRIPE_TIMEOUT_MS');
  const partnerTimeoutMs = timeout('ESIM_ACCESS_TIMEOUT_MS');
  if (missing.length > 0) throw new Error(`The shop API needs ${missing.join(', ')} (docs/going-live.md).`);
  // Where buyers return from the payment page: the site's URL (locally the served site, not the build's canonical one).
  const siteUrl = get('SITE_URL') ?? get('PUBLIC_SITE_URL') ?? DEFAULT_SITE_URL;
  const pushServiceStandInOrigin = standInOrigin(get('PUSH_SERVICE_STAND_IN_ORIGIN'), siteUrl);
  return {
    databaseUrl: get('DATABASE_URL'),
    dataDir: get('SHOP_DATA_DIR') ?? DEFAULT_DATA_DIR,
    stripeSecretKey: get('STRIPE_SECRET_KEY')!,
    stripeWebhookSecret: get('STRIPE_WEBHOOK_SECRET')!,
    stripeApiUrl: get('STRIPE_API_URL'),
    stripeTimeoutMs,
    siteUrl,
    firebaseProjectId: firebaseProjectId!,
    allowedOrigins: (get('SHOP_ALLOWED_ORIGINS') ?? new URL(siteUrl).origin).split(',').map((origin) => origin.trim()),
    partner: {
      accessCode: get('ESIM_ACCESS_CODE')!,
      secretKey: get('ESIM_ACCESS_SECRET')!,
      baseUrl: get('ESIM_ACCESS_BASE_URL') ?? ESIM_ACCESS_BASE_URL,
      ...(partnerTimeoutMs !== undefined && { timeoutMs: partnerTimeoutMs }),
    },
    partnerWebhookToken: get('PARTNER_WEBHOOK_TOKEN')!,
    morePartners: configuredPartners(env),
    smtpUrl: get('SMTP_URL')!,
    mailFrom: get('MAIL_FROM')!,
    providerAlertEmail: get('PROVIDER_ALERT_EMAIL'),
    reconcileToken: get('RECONCILE_TOKEN'),
    auditToken: get('AUDIT_TOKEN'),
    trustedProxies,
    port,
    publicApiUrl: (get('PUBLIC_API_URL') ?? `${siteUrl.replace(/\/+$/, '')}/api`).replace(/\/+$/, ''),
    vapid: {
      publicKey: get('VAPID_PUBLIC_KEY')!,
      privateKey: get('VAPID_PRIVATE_KEY')!,
      // The push services' contact for this sender: VAPID_SUBJECT, else the address e-mails come from.
      subject: get('VAPID_SUBJECT') ?? `mailto:${/<([^>]+)>/.exec(get('MAIL_FROM')!)?.[1] ?? get('MAIL_FROM')!}`,
    },
    alertsSecret: get('ALERTS_SECRET')!,
    pushServiceStandInOrigin,
  };
}

/**
 * PUSH_SERVICE_STAND_IN_ORIGIN (scripts/local-shop.ts sets it): only an http origin on loopback, and
 * never with a real site, so no configuration can open push endpoints to anything else.
 */
function standInOrigin(value: string | undefined, siteUrl: string): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const loopback = url && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(url.hostname));
  if (!url || url.protocol !== 'http:' || !loopback || value.replace(/\/$/, '') !== url.origin)
    throw new Error(
      'PUSH_SERVICE_STAND_IN_ORIGIN must be the local push-service stand-in’s origin, http://127.0.0.1:<port> (docs/going-live.md: Configuration).',
    );
  if (isRealOrigin(siteUrl)) throw new Error(`PUSH_SERVICE_STAND_IN_ORIGIN is for the local stand-in only, not for ${siteUrl}.`);
  return url.origin;
}

/**
 * The eSIM Access account alone, from ESIM_ACCESS_CODE, ESIM_ACCESS_SECRET and ESIM_ACCESS_BASE_URL
 * (scripts/generate-catalogue.ts asks the partner for its packages without the rest of the shop).
 */
export function esimAccessConfigFromEnv(env: Env = process.env): EsimAccessConfig {
  const required = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`${name} is not set: the eSIM Access adapter needs it`);
    return value;
  };
  return {
    accessCode: required('ESIM_ACCESS_CODE'),
    secretKey: required('ESIM_ACCESS_SECRET'),
    baseUrl: env['ESIM_ACCESS_BASE_URL']?.trim() || ESIM_ACCESS_BASE_URL,
  };
}

import { REQUIRED_VARIABLES, type Env } from './config.ts';
import { createMailer } from './mail/mailer.ts';
import { fromEcbStandIn } from '../pricing/exchange-rates.ts';

/**
 * The production preflight (issue 31): what main.ts checks before it serves, so a set-up that
 * would lose money or leak never takes traffic. Each problem is named; any problem refuses the
 * start. `npm start`, the tests and the fault run build the API through start.ts and never pass
 * here.
 */

/**
 * Test-only: lets the artifact test (tests/deploy/artifact.test.ts) run the production image's
 * start against the local stand-ins and the Auth emulator, on loopback only. Reported on every
 * start so it cannot pass unnoticed.
 */
export const STAND_IN_SWITCH = 'PREFLIGHT_ALLOW_LOOPBACK_STAND_INS_FOR_TESTS';

/** The variables a production start needs: those every start needs, and these. */
const REQUIRED_IN_PRODUCTION = [
  ...REQUIRED_VARIABLES,
  'DATABASE_URL',
  'SITE_URL',
  'FIREBASE_PROJECT_ID',
  'RECONCILE_TOKEN',
  'AUDIT_TOKEN',
  'PROVIDER_ALERT_EMAIL',
  'TRUSTED_PROXIES',
] as const;

/**
 * The emulator variables firebase-admin and the Google Cloud clients under it read (issue 46 item
 * 5). Each takes the emulator's path when it is set at all: firebase-admin tests the raw value, so
 * even ' ' points the Auth check at an emulator that accepts unsigned tokens. Any of these, and any
 * other *_EMULATOR_HOST, set to anything (an empty string too), refuses a production start.
 */
export const EMULATOR_VARIABLES = [
  'FIREBASE_AUTH_EMULATOR_HOST',
  'FIRESTORE_EMULATOR_HOST',
  'FIREBASE_EMULATOR_HUB',
  'FIREBASE_DATABASE_EMULATOR_HOST',
  'FIREBASE_STORAGE_EMULATOR_HOST',
  'STORAGE_EMULATOR_HOST',
  'CLOUD_TASKS_EMULATOR_HOST',
  'CLOUD_EVENTARC_EMULATOR_HOST',
  'DATA_CONNECT_EMULATOR_HOST',
] as const;
const EMULATOR_NAME = /_EMULATOR_(HOST|HUB)$/;

export interface PreflightResult {
  /** Each one refuses the start. */
  problems: string[];
  /** Said on every start, refuse nothing (the test-only switch). */
  warnings: string[];
}

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
const hostOf = (value: string) => (URL.canParse(value) ? new URL(value).hostname : value.split(':')[0]!);

/** `rates`: the catalogue snapshot's exchange rates, which the prices rest on (issue 34). */
export function productionPreflight(env: Env, rates?: { source: string }): PreflightResult {
  const get = (name: string) => env[name]?.trim() || undefined;
  const problems: string[] = [];
  const warnings: string[] = [];
  const standInsAllowed = get(STAND_IN_SWITCH) === '1';
  if (standInsAllowed)
    warnings.push(`${STAND_IN_SWITCH}=1: stand-ins on loopback are allowed. A test set-up, never a production one: unset it.`);

  for (const name of REQUIRED_IN_PRODUCTION) if (!get(name)) problems.push(`${name} is not set.`);
  if (!get('DATABASE_URL'))
    problems.push('Without DATABASE_URL the API would keep its orders in PGlite inside this instance, lost with it: set a PostgreSQL URL.');

  // A stand-in or emulator host: refused, or with the test switch allowed on loopback only.
  const standIn = (name: string, what: string, host: string) => {
    if (standInsAllowed && isLoopback(host)) warnings.push(`${name} points at ${what} on ${host} (allowed by ${STAND_IN_SWITCH}).`);
    else problems.push(`${name} is set (${what}): production talks to the real service, unset it.`);
  };
  // An emulator variable set at all, whatever its value (untrimmed: '' and ' ' count); the test
  // switch allows only a loopback host, which an empty or blank value is not.
  const emulators = new Set<string>([...EMULATOR_VARIABLES, ...Object.keys(env).filter((name) => EMULATOR_NAME.test(name))]);
  for (const name of emulators) {
    const value = env[name];
    if (value === undefined) continue;
    const what =
      name === 'FIREBASE_AUTH_EMULATOR_HOST'
        ? 'the Firebase Auth emulator, which accepts unsigned tokens'
        : 'a Firebase or Google Cloud emulator, which firebase-admin would talk to instead of the real service';
    standIn(name, what, hostOf(value.trim()));
  }
  // Prices on the ECB stand-in's fixed rates are prices nobody checked against the day's euro.
  if (rates && fromEcbStandIn(rates)) {
    const what = `the catalogue's exchange rates come from the ECB stand-in (${rates.source}): run npm run catalogue:generate with the real ECB rates and rebuild`;
    if (standInsAllowed) warnings.push(`${what} (allowed by ${STAND_IN_SWITCH}).`);
    else problems.push(`${what}.`);
  }
  const stripeUrl = get('STRIPE_API_URL');
  if (stripeUrl) standIn('STRIPE_API_URL', 'a Stripe stand-in', hostOf(stripeUrl));
  const partnerUrl = get('ESIM_ACCESS_BASE_URL');
  if (partnerUrl) standIn('ESIM_ACCESS_BASE_URL', 'an eSIM Access stand-in', hostOf(partnerUrl));
  if (get('PUSH_SERVICE_STAND_IN_ORIGIN')) problems.push('PUSH_SERVICE_STAND_IN_ORIGIN is set: it is for the local push stand-in only.');

  const stripeKey = get('STRIPE_SECRET_KEY');
  const standInStripe = standInsAllowed && stripeUrl !== undefined && isLoopback(hostOf(stripeUrl));
  if (stripeKey && !/^(sk|rk)_live_/.test(stripeKey) && !standInStripe)
    problems.push('STRIPE_SECRET_KEY is not a live key (sk_live_… or rk_live_…): test keys take no real payments.');
  const webhookSecret = get('STRIPE_WEBHOOK_SECRET');
  if (webhookSecret && !webhookSecret.startsWith('whsec_'))
    problems.push('STRIPE_WEBHOOK_SECRET is not a webhook signing secret (whsec_…, from the webhook endpoint in the Stripe Dashboard).');

  // The mailer's own rules (plain text only to this machine, a login for a relay), without sending.
  const smtp = get('SMTP_URL');
  if (smtp) {
    try {
      createMailer({ smtpUrl: smtp, from: get('MAIL_FROM') ?? 'preflight' }).close();
    } catch (error) {
      problems.push((error as Error).message);
    }
  }

  const siteUrl = get('SITE_URL');
  if (siteUrl && (!URL.canParse(siteUrl) || new URL(siteUrl).protocol !== 'https:'))
    problems.push('SITE_URL is not an https:// URL: buyers return there from the payment page.');
  const proxies = get('TRUSTED_PROXIES');
  if (proxies !== undefined && !/^\d+$/.test(proxies)) problems.push('TRUSTED_PROXIES is not a whole number of proxies.');
  // Issue 46 item 3: the service's run.app address stays open for Firebase Hosting, so anyone may
  // call it directly and write every X-Forwarded-For entry left of the one the front end appends.
  else if (proxies !== undefined && Number(proxies) > 1)
    warnings.push(
      `TRUSTED_PROXIES=${proxies} counts an X-Forwarded-For entry that a direct caller of the service's run.app address writes, and so resets every per-address limit: right only behind an external Application Load Balancer with the default URL disabled (docs/going-live.md: TRUSTED_PROXIES).`,
    );
  return { problems, warnings };
}

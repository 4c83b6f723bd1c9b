// The shop API as it runs locally and in the browser tests, with its stand-ins: the Stripe
// stand-in (its hosted test-payment page and signed webhooks to this API), the eSIM Access
// stand-in (allocation after a short delay, its webhook to this API), the other partners'
// (stand-ins/partner-stand-ins.ts: eSIM Go's, its callbacks to this API), the SMTP stand-in (every
// e-mail as an .eml file under reports/mail/), the push-service stand-in (the one push endpoint
// besides the browsers' push services this API takes), the database (PGlite under .data/ by default,
// DATABASE_URL, or --postgres: a throwaway real PostgreSQL server), and Firebase ID tokens from
// the Auth emulator. Served under /api, the path Hosting's rewrite gives it.
// Usage: node scripts/local-shop.ts [--port 8788] [--site-url http://127.0.0.1:4321] [--stripe-port 12111]
//   [--partner-port 8790] [--<partner>-port: --esim-go-port 8791] [--smtp-port 2525] [--push-port 8090] [--mail-dir reports/mail] [--allocation-delay-ms 1000] [--postgres]
//   [--stripe-url URL: a Stripe stand-in already running apart (npm run stand-in:stripe), instead of one in this process]
//   [--reconcile-every-ms 500: the reconcile job's tick; short here so stuck orders clear within a test]
import { parseArgs } from 'node:util';
import { LOCAL_API_BASE_URL } from '../src/config/env.ts';
import { shopConfigFromEnv } from '../src/server/config.ts';
import { startShopApi } from '../src/server/start.ts';
import { startEsimAccessStandIn } from '../stand-ins/esim-access/server.ts';
import { PARTNER_STAND_INS } from '../stand-ins/partner-stand-ins.ts';
import { startPushServiceStandIn } from '../stand-ins/push-service/server.ts';
import { DEFAULT_MAIL_DIR, startSmtpStandIn } from '../stand-ins/smtp/server.ts';
import { STAND_IN_WEBHOOK_SECRET, startStripeStandIn } from '../stand-ins/stripe/server.ts';
import { serveApi } from './lib/api-server.ts';
import { startPostgres } from './lib/postgres-server.ts';
import { standInEnv } from './lib/stand-in-env.ts';
import { throwawayAlertEnv } from './lib/throwaway-alert-keys.ts';

const local = new URL(LOCAL_API_BASE_URL);
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: local.port },
    'site-url': { type: 'string', default: 'http://127.0.0.1:4321' },
    'stripe-port': { type: 'string', default: '12111' },
    'stripe-url': { type: 'string' },
    'partner-port': { type: 'string', default: '8790' },
    ...Object.fromEntries(
      PARTNER_STAND_INS.map((standIn) => [`${standIn.id}-port`, { type: 'string', default: String(standIn.defaultPort) } as const]),
    ),
    'smtp-port': { type: 'string', default: '2525' },
    'push-port': { type: 'string', default: '8090' },
    'mail-dir': { type: 'string', default: DEFAULT_MAIL_DIR },
    'allocation-delay-ms': { type: 'string', default: '1000' },
    postgres: { type: 'boolean', default: false },
    snapshot: { type: 'string' },
    'reconcile-every-ms': { type: 'string', default: '500' },
  },
});
const basePath = local.pathname;
const apiUrl = `http://127.0.0.1:${values.port}${basePath}`;

const postgres = values.postgres ? await startPostgres() : undefined;
// Apart, the stand-in's work stays off this process's CPU, as Stripe's is in production (the benchmarks).
const stripe = values['stripe-url']
  ? { url: values['stripe-url'], close: async () => {} }
  : await startStripeStandIn({
      port: Number(values['stripe-port']),
      webhookUrl: `${apiUrl}/webhooks/stripe`,
      webhookSecret: STAND_IN_WEBHOOK_SECRET,
    });
// The stand-ins' own credentials: nothing secret, and never a production value.
const partnerAccount = { accessCode: 'stand-in-access-code', secretKey: 'stand-in-secret-key' };
const partnerWebhookToken = 'stand-in-partner-webhook-token';
const partner = await startEsimAccessStandIn({
  port: Number(values['partner-port']),
  ...partnerAccount,
  allocationDelayMs: Number(values['allocation-delay-ms']),
  webhookUrl: `${apiUrl}/webhooks/partner/${partnerWebhookToken}`,
});
const more = await Promise.all(
  PARTNER_STAND_INS.map(async (standIn) => ({
    id: standIn.id,
    name: standIn.name,
    ...(await standIn.start({ port: Number((values as Record<string, unknown>)[`${standIn.id}-port`]), apiUrl })),
  })),
);
const smtp = await startSmtpStandIn({ port: Number(values['smtp-port']), dir: values['mail-dir'] });
const pushService = await startPushServiceStandIn({ port: Number(values['push-port']) });
// firebase-admin reads the emulator's address from the environment.
process.env.FIREBASE_AUTH_EMULATOR_HOST ??= '127.0.0.1:9099';
const config = shopConfigFromEnv({
  // A fresh VAPID pair and unsubscribe key each start: devices subscribe again after a restart (unless set).
  ...throwawayAlertEnv(),
  ...process.env,
  ...standInEnv({
    stripeUrl: stripe.url,
    partnerUrl: partner.url,
    partner: partnerAccount,
    partnerWebhookToken,
    smtpUrl: smtp.url,
    authHost: process.env.FIREBASE_AUTH_EMULATOR_HOST,
  }),
  ...Object.assign({}, ...more.map((standIn) => standIn.env)),
  SITE_URL: values['site-url'],
  PUBLIC_API_URL: apiUrl,
  MAIL_FROM: 'Travel eSIM <orders@localhost>',
  // The stand-in's exact origin, passed here only: no other loopback address becomes a push endpoint.
  PUSH_SERVICE_STAND_IN_ORIGIN: pushService.url,
  ...(postgres && { DATABASE_URL: postgres.url }),
});
// Short waits between tries, so a stand-in failure a developer switches on plays out in seconds.
const { handler, stop: stopShop } = await startShopApi(config, {
  basePath,
  snapshotFile: values.snapshot,
  delivery: { retryDelaysMs: [1_000, 2_000, 4_000], allocationPollMs: 1_000 },
  reconcileEveryMs: Number(values['reconcile-every-ms']),
});
const api = await serveApi(handler, Number(values.port));

console.log(
  `Shop API at ${apiUrl} (database: ${postgres ? 'a throwaway PostgreSQL server' : config.databaseUrl ? 'DATABASE_URL' : `PGlite in ${config.dataDir}`})`,
);
console.log(`Stripe stand-in at ${stripe.url} (test card 4242 4242 4242 4242; events at ${stripe.url}/_stand-in/events)`);
console.log(
  `eSIM Access stand-in at ${partner.url}; ${more.map((standIn) => `${standIn.name} stand-in at ${standIn.url}; `).join('')}SMTP stand-in at ${smtp.url}, every e-mail in ${values['mail-dir']}`,
);
console.log(`Push-service stand-in at ${pushService.url} (messages at ${pushService.url}/_stand-in/messages)`);

async function stop() {
  await api.close();
  await stopShop();
  await stripe.close();
  await partner.close();
  for (const standIn of more) await standIn.close();
  await smtp.close();
  await pushService.close();
  await postgres?.stop();
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());

import { embeddedSnapshot, readSnapshot } from '../catalogue/snapshot.ts';
import { RECONCILE_EVERY_MS } from '../config/constants.ts';
import { createShopApi, type ShopApi, type ShopApiOptions } from './wiring.ts';
import { firebaseAccounts } from './auth.ts';
import type { ShopConfig } from './config.ts';
import type { Db } from './db/db.types.ts';
import { openDatabase } from './db/open.ts';
import { startReconcileTimer } from './reconcile/reconcile.ts';
import { createMailer } from './mail/mailer.ts';
import { createEsimAccessPartner } from './partner/esim-access/adapter.ts';
import { postgresPartnerBudget } from './partner/partner-budget.ts';
import { ESIM_ACCESS, partnerRegistry } from './partner/registry.ts';
import { createStripe } from './payments/stripe.ts';

/**
 * The shop API with its real parts, from configuration: the database (migrated), Stripe, the
 * eSIM partner (its request budget in the database), SMTP, Firebase token checks, and the
 * reconcile job on a timer.
 */
export async function startShopApi(
  config: ShopConfig,
  options: {
    basePath?: string;
    snapshotFile?: string | undefined;
    delivery?: ShopApiOptions['delivery'];
    opsActionStaleMs?: ShopApiOptions['opsActionStaleMs'];
    checkoutExpiryRetry?: ShopApiOptions['checkoutExpiryRetry'];
    reconcileTiming?: ShopApiOptions['reconcileTiming'];
    autoTopUpTiming?: ShopApiOptions['autoTopUpTiming'];
    reconcileEveryMs?: number;
    /** Production: never migrate here, refuse a database behind the code (db/open.ts). */
    schema?: 'migrate' | 'require-current';
  } = {},
): Promise<{ handler: ShopApi; db: Db; stop: () => Promise<void> }> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: options.schema ?? 'migrate' });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom });
  // Each partner's request budget (eSIM Access's 8 a second, eSIM Go's 10) is one for every
  // instance on this database. A request under way keeps its slot at least as long as the adapter may wait for it.
  const esimAccessBudget = postgresPartnerBudget(db, {
    account: config.partner.accessCode,
    leaseMs: Math.max(120_000, 2 * (config.partner.timeoutMs ?? 0)),
  });
  const more = config.morePartners.map((partner) => ({ partner, budget: postgresPartnerBudget(db, partner.budget) }));
  const budgets = { [ESIM_ACCESS]: esimAccessBudget, ...Object.fromEntries(more.map(({ partner, budget }) => [partner.id, budget])) };
  const handler = createShopApi({
    catalogue: options.snapshotFile ? readSnapshot(options.snapshotFile) : embeddedSnapshot(),
    db,
    stripe: createStripe({ secretKey: config.stripeSecretKey, apiUrl: config.stripeApiUrl, timeoutMs: config.stripeTimeoutMs }),
    stripeWebhookSecret: config.stripeWebhookSecret,
    accounts: firebaseAccounts(config.firebaseProjectId),
    siteUrl: config.siteUrl,
    allowedOrigins: config.allowedOrigins,
    partners: partnerRegistry(
      {
        [ESIM_ACCESS]: createEsimAccessPartner({ ...config.partner, budget: esimAccessBudget }),
        ...Object.fromEntries(more.map(({ partner, budget }) => [partner.id, partner.create(budget)])),
      },
      { budgets },
    ),
    partnerCallbacks: Object.fromEntries(config.morePartners.flatMap(({ id, callbacks }) => (callbacks ? [[id, callbacks]] : []))),
    mailer,
    providerAlertEmail: config.providerAlertEmail,
    partnerWebhookToken: config.partnerWebhookToken,
    reconcileToken: config.reconcileToken,
    auditToken: config.auditToken,
    alerts: { vapid: config.vapid, secret: config.alertsSecret, publicApiUrl: config.publicApiUrl },
    pushServiceStandInOrigin: config.pushServiceStandInOrigin,
    trustedProxies: config.trustedProxies,
    ...(options.basePath && { basePath: options.basePath }),
    ...(options.delivery && { delivery: options.delivery }),
    ...(options.opsActionStaleMs && { opsActionStaleMs: options.opsActionStaleMs }),
    ...(options.checkoutExpiryRetry && { checkoutExpiryRetry: options.checkoutExpiryRetry }),
    ...(options.reconcileTiming && { reconcileTiming: options.reconcileTiming }),
    ...(options.autoTopUpTiming && { autoTopUpTiming: options.autoTopUpTiming }),
  });
  // Orders left stuck by a stopped process are picked up from the first tick (and closed orders'
  // payment pages that Stripe could not be asked to expire at the time).
  const reconciler = startReconcileTimer(handler.reconcile, handler.fulfilment.settled, options.reconcileEveryMs ?? RECONCILE_EVERY_MS);
  async function stop() {
    await reconciler.stop();
    await handler.alerts.stop();
    mailer.close();
    await db.close();
  }
  return { handler, db, stop };
}

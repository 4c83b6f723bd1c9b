import type Stripe from 'stripe';
import type { Locale } from '../i18n/locales.ts';
import type { Snapshot } from '../catalogue/schema.ts';
import { PROVIDER } from '../config/provider.ts';
import { SITE_NAME } from '../config/site.ts';
import { SUPPORT_FORM_MIN_MS } from '../contract/support-api.ts';
import { createAlerts, type AlertsOptions } from './alerts/alerts.ts';
import { createAutoTopUps, type AutoTopUps, type AutoTopUpTiming } from './auto-top-ups/auto-top-ups.ts';
import type { ChargeJobDeps } from './auto-top-ups/charge-job.ts';
import { createAutoTopUpNotices } from './auto-top-ups/notices.ts';
import { checkoutAutoTopUps } from './auto-top-ups/checkout.ts';
import type { PushSender } from './push/sender.types.ts';
import type { Alerts } from './alerts/alerts.types.ts';
import { createAlertPreferences } from './alerts/preferences.ts';
import { createApp } from './app.ts';
import type { Accounts } from './auth.types.ts';
import type { Db } from './db/db.types.ts';
import { createEsimStore } from './esims/store.ts';
import { createFulfilmentEmails } from './fulfilment/emails.ts';
import { createFulfilment } from './fulfilment/fulfilment.ts';
import type { Fulfilment, FulfilmentOptions } from './fulfilment/fulfilment.types.ts';
import { createHeldOrders } from './fraud/holds.ts';
import { createActionRecords } from './ops/action-records.ts';
import { createAccountActions } from './ops/account-actions.ts';
import { createOrderActions } from './ops/order-actions.ts';
import { createReconcileJob, type ReconcileTiming } from './reconcile/reconcile.ts';
import { runScheduledAudit } from './reconcile/scheduled-audit.ts';
import { createUserLimits, USER_LIMITS, type UserLimits } from './limits.ts';
import type { Mailer } from './mail/mailer.types.ts';
import { destinationNames, sellablePlans } from './orders/plans.ts';
import { createOrderStore } from './orders/store.ts';
import { parsePartnerNotification } from './partner/esim-access/notifications.ts';
import type { PartnerNotification } from './partner/partner.types.ts';
import type { Partners } from './partner/registry.types.ts';
import { createCheckoutExpiry } from './payments/checkout-expiry.ts';
import type { CheckoutExpiryRetry } from './payments/checkout-expiry.types.ts';
import type { VapidConfig } from './config.ts';
import { createPushSender } from './push/sender.ts';
import { nextPartnerFrom } from './orders/partner-choice.ts';
import { createPushSubscriptions } from './push/subscriptions.ts';
import type { PartnerCallbacks } from './partner/partner-module.types.ts';

export interface ShopApiOptions {
  catalogue: Snapshot;
  db: Db;
  stripe: Stripe;
  stripeWebhookSecret: string;
  /** Who calls (Firebase ID tokens), and deleting an account with the shop's data. */
  accounts: Accounts;
  /** Where the pages live: the payment page returns there. */
  siteUrl: string;
  /** '/api' when mounted behind Hosting's rewrite. */
  basePath?: string;
  /** Origins whose pages may call the order routes from another origin (locally the site and the API have different ports). */
  allowedOrigins?: readonly string[];
  /** Proxies in front of the API that append to X-Forwarded-For: POST /csp-reports limits each client by its address (src/catalogue/csp-reports.ts). */
  trustedProxies?: number | undefined;
  /** The eSIM partners by id (partner/registry.ts; their stand-ins locally). */
  partners: Partners;
  /** Reads the partner's webhook bodies; eSIM Access's by default (the partner above speaks its protocol). */
  parsePartnerNotification?: (body: unknown) => PartnerNotification | undefined;
  mailer: Mailer;
  /** Where the provider's low-balance e-mail goes (PROVIDER_ALERT_EMAIL); unset: only the log. */
  providerAlertEmail?: string | undefined;
  /** The secret path segment of the partner's webhook URL (its notifications are not signed). */
  partnerWebhookToken: string;
  /** The signed callbacks of the partners beside eSIM Access, by id (POST /webhooks/<id>: partner-module.types.ts). */
  partnerCallbacks?: Readonly<Record<string, PartnerCallbacks>> | undefined;
  /** The scheduler's bearer token for POST /jobs/reconcile; unset: the route answers 404. */
  reconcileToken?: string | undefined;
  /** The scheduler's bearer token for POST /jobs/audit (hourly, e-mails the provider what it finds); unset: the route answers 404. */
  auditToken?: string | undefined;
  /** Per-user limits of the costly routes (src/config/constants.ts; a test may raise them). */
  limits?: Partial<UserLimits>;
  /** Alerts by e-mail and Web Push (issue 23). */
  alerts: {
    vapid: VapidConfig;
    /** The unsubscribe tokens' key. */
    secret: string;
    /** Where mail programs reach this API; default: the site's /api. */
    publicApiUrl?: string;
  } & Pick<AlertsOptions, 'readyAfterMs' | 'usageBatchMs'>;
  /** Dev and tests only (never a live site): the push-service stand-in's origin, a push endpoint besides the browsers' push services. */
  pushServiceStandInOrigin?: string | undefined;
  /** Retry timing of deliveries (tests make it short). */
  delivery?: Pick<
    FulfilmentOptions,
    'retryDelaysMs' | 'allocationPollMs' | 'allocationLimitMs' | 'leaseMs' | 'refundPollMs' | 'deliveryPromiseMs'
  >;
  /** Retry timing of closing payment pages at Stripe (CHECKOUT_EXPIRY_RETRY; the fault run makes it short). */
  checkoutExpiryRetry?: CheckoutExpiryRetry;
  /** How long an operator's action left 'started' by an instance that died waits before it may run again (the fault run makes it short). */
  opsActionStaleMs?: number;
  /** The reconcile job's sweeps: how often partners' unclaimed purchases are looked for, how old, and a dead instance's claim (the fault run makes them short). */
  reconcileTiming?: ReconcileTiming;
  /** Automatic top-ups' claims and retries (the fault run makes them short). */
  autoTopUpTiming?: AutoTopUpTiming;
  /** The support form's shortest fill time (SUPPORT_FORM_MIN_MS; tests make it short). */
  supportFormMinMs?: number;
}

/**
 * The fetch handler, the delivery it drives (for a clean stop) and the reconcile job (for the timer:
 * stuck orders, and closed orders' payment pages still open at Stripe).
 */
export type ShopApi = ((request: Request, connection?: object) => Promise<Response>) & {
  fulfilment: Fulfilment;
  reconcile: () => Promise<number>;
  alerts: Alerts;
  autoTopUps: AutoTopUps;
  /** Shutting down (SIGTERM, main.ts): every open long-poll answers now, as when its time is up, and new ones at once. */
  endLongPolls: () => void;
};

/** The automatic top-ups (issue 49): charged on the saved card, delivered by the fulfilment, their news by e-mail and push. */
function autoTopUpsOf(
  options: ShopApiOptions,
  parts: Pick<ChargeJobDeps, 'esims' | 'destination' | 'fulfilment'> & { push: PushSender; siteUrl: string },
): AutoTopUps {
  const { db, stripe, partners, catalogue } = options;
  const { destination, siteUrl } = parts;
  return createAutoTopUps({
    ...options.autoTopUpTiming,
    ...parts,
    db,
    stripe,
    partners,
    rates: catalogue.exchangeRates.applied,
    notices: createAutoTopUpNotices({
      db,
      mailer: options.mailer,
      push: parts.push,
      siteUrl,
      siteName: SITE_NAME,
      secret: options.alerts.secret,
      destinationName: (code, lang) => destination(code, lang).name,
    }),
  });
}

/**
 * The shop API (DESIGN 6) from its parts: the stores on the database, the delivery through the
 * partner and the mailer, the per-user limits, the payment pages' expiry and the reconcile job,
 * handed to the routes (app.ts).
 */
export function createShopApi(options: ShopApiOptions): ShopApi {
  const { db, stripe, catalogue, partners } = options;
  const store = createOrderStore(db);
  const esims = createEsimStore(db);
  const destination = destinationNames(catalogue);
  const siteUrl = options.siteUrl.replace(/\/+$/, '');
  const plans = sellablePlans(catalogue);
  const nextPartner = nextPartnerFrom(plans, partners, catalogue.exchangeRates.applied);
  const fulfilment = createFulfilment({
    db,
    partners,
    nextPartner,
    stripe,
    mailer: options.mailer,
    siteUrl,
    siteName: SITE_NAME,
    linkSecret: options.alerts.secret,
    destinationName: (code, lang) => destination(code, lang).name,
    ...options.delivery,
    // Called only after the API is built (a delivery's end), when `alerts` below exists.
    onDelivered: (orderId) => alerts.delivered(orderId),
  });
  const alertPreferences = createAlertPreferences(db);
  const pushSubscriptions = createPushSubscriptions(db);
  const { vapid } = options.alerts;
  const push = createPushSender({ vapid, subscriptions: pushSubscriptions, standInOrigin: options.pushServiceStandInOrigin });
  const dataKinds = new Map(catalogue.packages.map((p) => [p.id, p.facts.data.kind]));
  const autoTopUps = autoTopUpsOf(options, { esims, destination, fulfilment, push, siteUrl });
  const alerts = createAlerts({
    db,
    esims,
    partners,
    mailer: options.mailer,
    push,
    preferences: alertPreferences,
    siteUrl,
    publicApiUrl: (options.alerts.publicApiUrl ?? `${siteUrl}/api`).replace(/\/+$/, ''),
    siteName: SITE_NAME,
    secret: options.alerts.secret,
    destinationName: (code, lang) => destination(code, lang).name,
    dataKindOf: (planId) => dataKinds.get(planId),
    autoTopUps,
    ...(options.alerts.readyAfterMs !== undefined && { readyAfterMs: options.alerts.readyAfterMs }),
    ...(options.alerts.usageBatchMs !== undefined && { usageBatchMs: options.alerts.usageBatchMs }),
  });
  const checkouts = createCheckoutExpiry(db, stripe, options.checkoutExpiryRetry);
  const reconcile = createReconcileJob({
    db,
    stripe,
    partners,
    store,
    fulfilment,
    checkouts,
    alerts,
    autoTopUps,
    mailer: options.mailer,
    providerAlertEmail: options.providerAlertEmail,
    ...(options.reconcileTiming && { timing: options.reconcileTiming }),
  });
  const heldOrders = createHeldOrders({ db, run: fulfilment.run, refunds: fulfilment });
  const fulfilmentEmails = createFulfilmentEmails({
    db,
    esims,
    mailer: options.mailer,
    siteUrl,
    siteName: SITE_NAME,
    linkSecret: options.alerts.secret,
    destinationName: (code, lang) => destination(code, lang).name,
  });
  const actionRecords = createActionRecords(db, options.opsActionStaleMs);
  const orderActions = createOrderActions({
    db,
    accounts: options.accounts,
    store,
    checkouts,
    fulfilment,
    partners,
    heldOrders,
    nextPartner,
    resendOrderEmail: fulfilmentEmails.resendOrderEmail,
    actionRecords,
  });
  const accountActions = createAccountActions({
    ...{ db, stripe },
    accounts: options.accounts,
    store,
    checkouts,
    pushSubscriptions,
    alertPreferences,
    actionRecords,
  });
  const closing = new AbortController();
  const app = createApp({
    closing: closing.signal,
    support: {
      mailer: options.mailer,
      siteUrl,
      siteName: SITE_NAME,
      providerEmail: PROVIDER.supportEmail,
      secret: options.alerts.secret,
      formMinMs: options.supportFormMinMs ?? SUPPORT_FORM_MIN_MS,
    },
    orderActions,
    accountActions,
    actionRecords,
    travellerMail: {
      sendTravellerEmail: fulfilmentEmails.sendTravellerEmail,
      pageUrl: (order, token) => fulfilmentEmails.travellerPageUrl(order.lang as Locale, token),
    },
    catalogue,
    basePath: options.basePath ?? '',
    db,
    stripe,
    stripeWebhookSecret: options.stripeWebhookSecret,
    accounts: options.accounts,
    allowedOrigins: new Set(options.allowedOrigins ?? [new URL(siteUrl).origin]),
    trustedProxies: options.trustedProxies,
    siteUrl,
    store,
    esims,
    plans,
    destination,
    partners,
    parsePartnerNotification: options.parsePartnerNotification ?? parsePartnerNotification,
    partnerWebhookToken: options.partnerWebhookToken,
    partnerCallbacks: options.partnerCallbacks,
    fulfilment,
    limits: createUserLimits(db, { ...USER_LIMITS, ...options.limits }),
    checkouts,
    reconcileToken: options.reconcileToken,
    reconcile,
    auditToken: options.auditToken,
    runAudit: () => runScheduledAudit({ db, mailer: options.mailer, providerEmail: options.providerAlertEmail }),
    alerts,
    alertPreferences,
    pushSubscriptions,
    push,
    alertsSecret: options.alerts.secret,
    checkoutAutoTopUps: checkoutAutoTopUps(db, stripe),
  });
  // The server's bindings (the socket) pass through: the CSP report limit tells clients apart by them.
  return Object.assign((request: Request, connection?: object) => Promise.resolve(app.fetch(request, connection)), {
    fulfilment,
    reconcile,
    alerts,
    autoTopUps,
    endLongPolls: () => closing.abort(),
  });
}

import { Hono } from 'hono';
import { routePath } from 'hono/route';
import type Stripe from 'stripe';
import { noSuchEndpoint, routingPath } from '../catalogue/answers.ts';
import { cspReportRoutes } from '../catalogue/csp-reports.ts';
import { catalogueRoutes } from '../catalogue/routes.ts';
import type { Snapshot } from '../catalogue/schema.ts';
import { accountRoutes } from './account/routes.ts';
import { autoTopUpRoutes, savedCardRoutes } from './auto-top-ups/routes.ts';
import type { CheckoutAutoTopUps } from './orders/place-order.ts';
import type { Alerts } from './alerts/alerts.types.ts';
import type { AlertPreferenceStore } from './alerts/preferences.types.ts';
import { alertPreferenceRoutes, alertUnsubscribeRoutes } from './alerts/routes.ts';
import type { Accounts } from './auth.types.ts';
import { buyerAuth } from './buyer-auth.ts';
import type { Db } from './db/db.types.ts';
import { esimRoutes } from './esims/routes.ts';
import type { EsimStore } from './esims/store.types.ts';
import type { DestinationOf } from './esims/view.ts';
import type { Fulfilment } from './fulfilment/fulfilment.types.ts';
import { fail } from './http.ts';
import { jobRoutes } from './jobs/routes.ts';
import type { UserLimiter } from './limits.types.ts';
import type { SellablePlan } from './orders/plans.ts';
import { opsRoutes, type OpsRouteDeps } from './ops/routes.ts';
import { orderRoutes } from './orders/routes.ts';
import { createSalesPauseCache } from './orders/sales-pause.ts';
import { cartRoutes } from './carts/routes.ts';
import type { OrderStore } from './orders/store.types.ts';
import type { PartnerNotification } from './partner/partner.types.ts';
import type { Partners } from './partner/registry.types.ts';
import type { CheckoutExpiry } from './payments/checkout-expiry.types.ts';
import { pushPublicKeyRoutes, pushSubscriptionRoutes } from './push/routes.ts';
import type { PushSender } from './push/sender.types.ts';
import type { PushSubscriptionStore } from './push/subscriptions.types.ts';
import { supportRoutes } from './support/routes.ts';
import { travellerRoutes } from './travellers/routes.ts';
import type { ShareDeps } from './travellers/share.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import type { PartnerCallbacks } from './partner/partner-module.types.ts';

/** Everything the routes use, built once per API (wiring.ts builds them, createApp mounts the routes on them). */
export interface ShopParts extends Pick<OpsRouteDeps, 'orderActions' | 'accountActions' | 'actionRecords' | 'support'> {
  catalogue: Snapshot;
  basePath: string;
  db: Db;
  stripe: Stripe;
  stripeWebhookSecret: string;
  accounts: Accounts;
  allowedOrigins: ReadonlySet<string>;
  trustedProxies: number | undefined;
  /** Without a trailing slash. */
  siteUrl: string;
  store: OrderStore;
  esims: EsimStore;
  plans: ReadonlyMap<string, SellablePlan>;
  destination: DestinationOf;
  partners: Partners;
  parsePartnerNotification: (body: unknown) => PartnerNotification | undefined;
  partnerWebhookToken: string;
  partnerCallbacks?: Readonly<Record<string, PartnerCallbacks>> | undefined;
  fulfilment: Fulfilment;
  limits: UserLimiter;
  checkouts: CheckoutExpiry;
  reconcileToken: string | undefined;
  reconcile: () => Promise<number>;
  auditToken: string | undefined;
  runAudit: () => Promise<{ checked: number; findings: number; emailed: boolean }>;
  alerts: Alerts;
  alertPreferences: AlertPreferenceStore;
  pushSubscriptions: PushSubscriptionStore;
  push: PushSender;
  /** The unsubscribe tokens' key. */
  alertsSecret: string;
  /** A traveller's e-mail and page address (issue 33). */
  travellerMail: ShareDeps['mail'];
  /** Automatic top-ups ticked at checkout (issue 49): the consent stored, the card saved by the payment. */
  checkoutAutoTopUps: CheckoutAutoTopUps;
  /** Aborted when the instance shuts down (SIGTERM): the open long-polls answer at once. */
  closing?: AbortSignal;
}

/**
 * The shop API's routes (DESIGN 6), one Hono app: the catalogue (GET /regions, /countries,
 * /packages), POST /csp-reports, the buyer's orders, eSIMs and account (a Firebase ID token each),
 * the Stripe and partner webhooks, the scheduler's job and the back office (/ops). Every failure answers
 * `{ error: { code, message } }`; user input never causes a 500. The parts come from wiring.ts.
 */
export function createApp(parts: ShopParts) {
  const auth = buyerAuth(parts.accounts, parts.allowedOrigins);
  // Whether sales are paused, kept between orders and carts (orders/sales-pause.ts).
  const salesPause = createSalesPauseCache(parts.db);
  // Paths as the catalogue always read them: '/api/countries/' is '/api/countries'.
  const app = new Hono({ getPath: routingPath })
    .basePath(parts.basePath || '/')
    .route('/orders', orderRoutes({ ...parts, auth, salesPause }))
    .route('/carts', cartRoutes({ ...parts, auth, salesPause }))
    .route('/esims', esimRoutes({ ...parts, auth }))
    .route('/traveller', travellerRoutes(parts))
    // /me/… before /me, whose guard covers only /me itself.
    .route('/me/alerts', alertPreferenceRoutes({ ...parts, auth }))
    .route('/me/push-subscriptions', pushSubscriptionRoutes({ ...parts, auth }))
    .route('/me/card', savedCardRoutes({ ...parts, auth }))
    .route('/me', accountRoutes({ ...parts, auth }))
    .route('/support', supportRoutes({ ...parts, auth }))
    .route('/push', pushPublicKeyRoutes(parts))
    .route('/alerts', alertUnsubscribeRoutes(parts))
    .route('/auto-top-ups', autoTopUpRoutes({ ...parts, auth }))
    .route('/webhooks', webhookRoutes(parts))
    .route('/jobs', jobRoutes(parts))
    .route('/csp-reports', cspReportRoutes(parts))
    .route('/ops', opsRoutes(parts))
    .route('/', catalogueRoutes(parts.catalogue));
  app.notFound(noSuchEndpoint);
  app.onError((error, c) => {
    // The route's pattern, never the path: the partner webhook's path holds its secret token.
    console.error('shop-api', c.req.method, routePath(c), error);
    return fail(c, 500, 'internal_error', 'Something went wrong. Please try again.');
  });
  return app;
}

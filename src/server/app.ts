import { Hono } from 'hono';
import { routePath } from 'hono/route';
import { noSuchEndpoint, routingPath } from '../catalogue/answers.ts';
import { cspReportRoutes } from '../catalogue/csp-reports.ts';
import { catalogueRoutes } from '../catalogue/routes.ts';
import { accountRoutes } from './account/routes.ts';
import { alertPreferenceRoutes, alertUnsubscribeRoutes } from './alerts/routes.ts';
import { buyerAuth } from './buyer-auth.ts';
import { esimRoutes } from './esims/routes.ts';
import { fail } from './http.ts';
import { jobRoutes } from './jobs/routes.ts';
import { orderRoutes } from './orders/routes.ts';
import { pushPublicKeyRoutes, pushSubscriptionRoutes } from './push/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import type { ShopParts } from './wiring.ts';

/**
 * The shop API's routes (DESIGN 6), one Hono app: the catalogue (GET /regions, /countries,
 * /packages), POST /csp-reports, the buyer's orders, eSIMs and account (a Firebase ID token each),
 * the Stripe and partner webhooks and the scheduler's job. Every failure answers
 * `{ error: { code, message } }`; user input never causes a 500. The parts come from wiring.ts.
 */
export function createApp(parts: ShopParts) {
  const auth = buyerAuth(parts.accounts, parts.allowedOrigins);
  // Paths as the catalogue always read them: '/api/countries/' is '/api/countries'.
  const app = new Hono({ getPath: routingPath })
    .basePath(parts.basePath || '/')
    .route('/orders', orderRoutes({ ...parts, auth }))
    .route('/esims', esimRoutes({ ...parts, auth }))
    // /me/… before /me, whose guard covers only /me itself.
    .route('/me/alerts', alertPreferenceRoutes({ ...parts, auth }))
    .route('/me/push-subscriptions', pushSubscriptionRoutes({ ...parts, auth }))
    .route('/me', accountRoutes({ ...parts, auth }))
    .route('/push', pushPublicKeyRoutes(parts))
    .route('/alerts', alertUnsubscribeRoutes(parts))
    .route('/webhooks', webhookRoutes(parts))
    .route('/jobs', jobRoutes(parts))
    .route('/csp-reports', cspReportRoutes(parts))
    .route('/', catalogueRoutes(parts.catalogue));
  app.notFound(noSuchEndpoint);
  app.onError((error, c) => {
    // The route's pattern, never the path: the partner webhook's path holds its secret token.
    console.error('shop-api', c.req.method, routePath(c), error);
    return fail(c, 500, 'internal_error', 'Something went wrong. Please try again.');
  });
  return app;
}

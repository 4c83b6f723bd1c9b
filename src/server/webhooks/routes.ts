import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type Stripe from 'stripe';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import type { Alerts } from '../alerts/alerts.types.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimStore } from '../esims/store.types.ts';
import type { Fulfilment } from '../fulfilment/fulfilment.types.ts';
import { handlePartnerNotification } from '../fulfilment/partner-webhook.ts';
import { fail, sameSecret } from '../http.ts';
import type { OrderStore } from '../orders/store.types.ts';
import type { PartnerNotification } from '../partner/partner.types.ts';
import type { PartnerCallbacks } from '../partner/partner-module.types.ts';
import { ESIM_ACCESS } from '../partner/registry.ts';
import type { Partners } from '../partner/registry.types.ts';
import { refundMismatches } from '../payments/mismatches.ts';
import { handleStripeEvent } from './stripe-event.ts';

const MAX_WEBHOOK_BODY_BYTES = 512 * 1024;
const MAX_PARTNER_BODY_BYTES = 64 * 1024;

export interface WebhookRoutesDeps {
  db: Db;
  stripe: Stripe;
  stripeWebhookSecret: string;
  store: OrderStore;
  esims: EsimStore;
  partners: Partners;
  /** Reads the partner's webhook body (its own format); undefined when it is none of its notifications. */
  parsePartnerNotification: (body: unknown) => PartnerNotification | undefined;
  /** The secret path segment of the partner's webhook URL. */
  partnerWebhookToken: string;
  /** The signed callbacks of the partners beside eSIM Access, by id (POST /<id>); a partner not here answers 404. */
  partnerCallbacks?: Readonly<Record<string, PartnerCallbacks>> | undefined;
  fulfilment: Fulfilment;
  alerts: Alerts;
}

/** What the payment provider and the eSIM partners tell us, mounted at /webhooks: POST /stripe, /partner/:token (eSIM Access), /<id> (the others: eSIM Go's /esim-go). */
export function webhookRoutes(deps: WebhookRoutesDeps) {
  const partnerBodyLimit = bodyLimit({
    maxSize: MAX_PARTNER_BODY_BYTES,
    onError: (c) => fail(c, 413, ERROR_CODES.bodyTooLarge, 'The notification is too large.'),
  });
  const { db, stripe, store, esims, partners, fulfilment, alerts } = deps;
  return (
    new Hono()
      .post(
        '/stripe',
        bodyLimit({ maxSize: MAX_WEBHOOK_BODY_BYTES, onError: (c) => fail(c, 413, ERROR_CODES.bodyTooLarge, 'The event is too large.') }),
        async (c) => {
          const signature = c.req.header('stripe-signature');
          const payload = await c.req.text();
          let event: Stripe.Event;
          try {
            if (!signature) throw new Error('no signature');
            event = stripe.webhooks.constructEvent(payload, signature, deps.stripeWebhookSecret);
          } catch {
            return fail(c, 400, 'bad_signature', 'The Stripe-Signature header does not verify.');
          }
          const { outcome, orderIds } = await handleStripeEvent(stripe, store, event);
          // A paid order is delivered now, and a settled refund carried through, not when the job next
          // looks (the job catches it if this process stops).
          if (outcome === 'moved') for (const id of orderIds) void fulfilment.run(id);
          // Money for no order it matches goes back now (the reconcile job retries what fails).
          if (outcome === 'mismatch') await refundMismatches(db, stripe);
          return c.json({ received: true, outcome });
        },
      )
      // The partner's notifications are not signed: a secret in the URL keeps strangers out, and each
      // one only makes us ask the partner (DESIGN 6). Answered at once; the work follows.
      .post('/partner/:token', partnerBodyLimit, async (c) => {
        if (!sameSecret(c.req.param('token'), deps.partnerWebhookToken)) return fail(c, 404, ERROR_CODES.notFound, 'Not found.');
        const notification = deps.parsePartnerNotification(await c.req.json().catch(() => undefined));
        if (!notification) return fail(c, 400, ERROR_CODES.badRequest, 'Not a partner notification.');
        const outcome = await handlePartnerNotification({ db, store, esims, partners, fulfilment, alerts }, ESIM_ACCESS, notification);
        return c.json({ received: true, outcome });
      })
      // The other partners sign their callbacks (eSIM Go's V3: an HMAC-SHA256 of the raw body keyed
      // by the API key); each is a hint too, read back from the partner before anything is stored.
      .post('/:partner{[a-z0-9-]+}', partnerBodyLimit, async (c) => {
        const id = c.req.param('partner');
        const callbacks = Object.hasOwn(deps.partnerCallbacks ?? {}, id) ? deps.partnerCallbacks![id] : undefined;
        if (!callbacks) return fail(c, 404, ERROR_CODES.notFound, 'Not found.');
        const notification = callbacks(await c.req.text(), (name) => c.req.header(name));
        if (notification === 'unsigned') return fail(c, 401, 'bad_signature', 'The callback’s signature does not verify.');
        if (!notification) return fail(c, 400, ERROR_CODES.badRequest, `Not a callback of ${partners.nameOf(id)}.`);
        const outcome = await handlePartnerNotification({ db, store, esims, partners, fulfilment, alerts }, id, notification);
        return c.json({ received: true, outcome });
      })
  );
}

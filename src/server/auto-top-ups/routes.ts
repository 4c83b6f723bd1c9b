import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type Stripe from 'stripe';
import type { Snapshot } from '../../catalogue/schema.ts';
import {
  AutoTopUpRequest,
  CardSavedRequest,
  ERROR_CODES,
  SaveCardRequest,
  type AutoTopUpLinkView,
  type SavedCardAnswer,
} from '../../contract/shop-api.ts';
import { localizePath } from '../../i18n/paths.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimStore } from '../esims/store.types.ts';
import { canTopUp, esimStatus, type DestinationOf } from '../esims/view.ts';
import { fail, siteCors } from '../http.ts';
import type { UserLimiter } from '../limits.types.ts';
import { createOrderStore } from '../orders/store.ts';
import type { Partners } from '../partner/registry.types.ts';
import { createCheckoutSession } from '../payments/stripe.ts';
import { productName } from '../orders/place-order.ts';
import { refuse } from '../refusals.ts';
import { isUuid } from '../uuid.ts';
import { jsonBody, langQuery } from '../validation.ts';
import { autoTopUpPagePath, readAutoTopUpToken } from './links.ts';
import { cardOfSetupSession, cardSetupPage, cardView, detachCard, recordSavedCard, removeSavedCard } from './saved-card.ts';
import { autoTopUpView, offersOf, saveAutoTopUps } from './settings.ts';
import * as store from './store.ts';
import type { Locale } from '../../i18n/locales.ts';

export interface AutoTopUpRouteDeps {
  db: Db;
  stripe: Stripe;
  auth: MiddlewareHandler<BuyerEnv>;
  esims: EsimStore;
  partners: Partners;
  destination: DestinationOf;
  limits: UserLimiter;
  catalogue: Pick<Snapshot, 'exchangeRates'>;
  allowedOrigins: ReadonlySet<string>;
  /** Without a trailing slash: Stripe's pages come back here. */
  siteUrl: string;
  /** The e-mail links' signing key. */
  alertsSecret: string;
}

const unavailable = (c: Context) => refuse(c, { outcome: 'payment_unavailable' });

/** The buyer's saved card, mounted at /me/card: GET it, POST for Stripe's page that saves one, POST /saved on coming back, DELETE it. */
export function savedCardRoutes(deps: AutoTopUpRouteDeps) {
  const { db, stripe } = deps;
  return new Hono<BuyerEnv>()
    .use('*', deps.auth)
    .get('/', async (c) => c.json({ card: cardView(await store.savedCard(db, c.var.caller.uid)) } satisfies SavedCardAnswer))
    .post('/', ...jsonBody(SaveCardRequest), async (c) => {
      const { lang, esimId } = c.req.valid('json');
      const caller = c.var.caller;
      const owned = esimId ? await deps.esims.ownedOne(caller.uid, esimId) : undefined;
      if (esimId && !owned) return refuse(c, { outcome: 'no_such_esim' });
      try {
        const url = await cardSetupPage(db, stripe, caller, {
          lang,
          // A card for an eSIM is saved in its currency; one saved from the profile, in euros.
          currency: owned?.order.currency ?? 'EUR',
          returnUrl: `${deps.siteUrl}${localizePath(lang, '/my-esim')}${esimId ? `#auto-top-up-${esimId}` : ''}`,
        });
        return c.json({ url });
      } catch (error) {
        console.error('saved card: setup page not made', error instanceof Error ? error.message : error);
        return unavailable(c);
      }
    })
    .post('/saved', ...jsonBody(CardSavedRequest), async (c) => {
      const uid = c.var.caller.uid;
      try {
        const saved = await cardOfSetupSession(stripe, c.req.valid('json').sessionId);
        // Only the caller's own Customer's card: a session id of someone else's changes nothing.
        const mine = await store.savedCard(db, uid);
        if (saved && mine?.stripe_customer_id === saved.customerId) await detachCard(stripe, await recordSavedCard(db, saved));
      } catch (error) {
        console.error('saved card: not read', error instanceof Error ? error.message : error);
        return unavailable(c);
      }
      return c.json({ card: cardView(await store.savedCard(db, uid)) } satisfies SavedCardAnswer);
    })
    .delete('/', async (c) => {
      try {
        await removeSavedCard(db, stripe, c.var.caller.uid, 'buyer');
      } catch (error) {
        console.error('saved card: not removed', error instanceof Error ? error.message : error);
        return unavailable(c);
      }
      return c.body(null, 204);
    });
}

/**
 * Automatic top-ups, mounted at /auto-top-ups: an eSIM's setting for its owner (GET, PUT to turn
 * them on or change them, DELETE to turn them off), and the e-mails' links, signed, without a
 * sign-in: GET /link says what a link is for, POST /link/pay opens Stripe's page for a refused
 * top-up, POST /link/off turns them off.
 */
export function autoTopUpRoutes(deps: AutoTopUpRouteDeps) {
  const { db, esims, destination, limits } = deps;
  const settings = { db, partners: deps.partners, rates: deps.catalogue.exchangeRates.applied };
  const orders = createOrderStore(db);

  const ownedEsim = async (c: Context<BuyerEnv>) => {
    const id = c.req.param('id') ?? '';
    return isUuid(id) ? esims.ownedOne(c.var.caller.uid, id) : undefined;
  };
  const invalidLink = (c: Context) =>
    fail(c, 400, ERROR_CODES.invalidToken, 'This link is not valid. Manage automatic top-ups in My eSIMs.');
  const linkOf = (c: Context) => readAutoTopUpToken(deps.alertsSecret, c.req.query('token') ?? '');

  /** A refused top-up may be paid while it is unpaid and its eSIM can still take it. */
  async function payable(orderId: string) {
    const order = isUuid(orderId) ? await orders.byId(db, orderId) : undefined;
    if (!order || order.kind !== 'auto' || !order.top_up_of) return undefined;
    // A deleted account's orders are detached: nobody's eSIM, nothing to pay.
    const owned = order.uid ? await esims.ownedOne(order.uid, order.top_up_of) : undefined;
    const refused = order.state === 'payment_failed';
    const ended = !owned?.esim || !canTopUp(esimStatus(owned.order, owned.esim, new Date()));
    return { order, state: refused ? (ended ? 'ended' : 'payable') : order.state === 'pending_payment' ? 'ended' : 'paid' } as const;
  }

  const buyer = new Hono<BuyerEnv>()
    .use('*', deps.auth)
    .get('/:id', langQuery, async (c) => {
      const owned = await ownedEsim(c);
      if (!owned) return refuse(c, { outcome: 'no_such_esim' });
      // Each look asks the partner for the eSIM's top-ups: counted as the top-ups' own page is.
      const wait = await limits.take('topUps', c.var.caller.uid);
      if (wait !== undefined) return refuse(c, { outcome: 'too_many_attempts', retryAfterSeconds: wait });
      const offers = await offersOf(settings, owned);
      if (!offers) return refuse(c, { outcome: 'partner_unavailable' });
      return c.json(await autoTopUpView(settings, owned, destination(owned.order.destination, c.req.valid('query').lang), offers));
    })
    .put('/:id', ...jsonBody(AutoTopUpRequest), async (c) => {
      const owned = await ownedEsim(c);
      if (!owned) return refuse(c, { outcome: 'no_such_esim' });
      const request = c.req.valid('json');
      const saved = await saveAutoTopUps(settings, owned, request);
      if ('refused' in saved) {
        if (saved.refused === 'cap_too_low')
          return fail(c, 409, ERROR_CODES.capTooLow, "The monthly limit is below the top-up's price: nothing was changed.");
        if (saved.refused === 'no_top_ups') return refuse(c, { outcome: 'esim_cannot_top_up' });
        return refuse(c, { outcome: saved.refused });
      }
      return c.json(await autoTopUpView(settings, owned, destination(owned.order.destination, request.lang), saved.offers));
    })
    .delete('/:id', langQuery, async (c) => {
      const owned = await ownedEsim(c);
      if (!owned) return refuse(c, { outcome: 'no_such_esim' });
      await db.transaction((tx) => store.turnOff(tx, owned.order.id, 'buyer', 'turned off in My eSIMs'));
      // Turned off whatever the partner answers: the top-ups to choose from are shown when it does.
      const offers = (await offersOf(settings, owned)) ?? [];
      return c.json(await autoTopUpView(settings, owned, destination(owned.order.destination, c.req.valid('query').lang), offers));
    });

  return new Hono()
    .route('/esims', buyer)
    .use('/link/*', siteCors(deps.allowedOrigins, { allowMethods: ['GET', 'POST'] }))
    .get('/link', langQuery, async (c) => {
      const link = linkOf(c);
      if (!link) return invalidLink(c);
      const { lang } = c.req.valid('query');
      if (link.purpose === 'off') {
        const esimOrder = isUuid(link.esimId) ? await orders.byId(db, link.esimId) : undefined;
        const setting = await store.settingOf(db, link.esimId);
        if (!esimOrder || !setting) return invalidLink(c);
        return c.json({
          purpose: 'off',
          destination: destination(esimOrder.destination, lang),
          enabled: setting.enabled,
        } satisfies AutoTopUpLinkView);
      }
      const found = await payable(link.orderId);
      if (!found) return invalidLink(c);
      const { order, state } = found;
      return c.json({
        purpose: 'pay',
        state,
        destination: destination(order.destination, lang),
        plan: order.plan,
        total: { amountMinor: order.amount_minor, currency: order.currency },
      } satisfies AutoTopUpLinkView);
    })
    .post('/link/pay', langQuery, async (c) => {
      const link = linkOf(c);
      if (link?.purpose !== 'pay') return invalidLink(c);
      const found = await payable(link.orderId);
      if (!found) return invalidLink(c);
      if (found.state !== 'payable') return fail(c, 409, ERROR_CODES.cannotTopUp, 'This top-up cannot be paid any more.');
      const { order } = found;
      const lang = c.req.valid('query').lang;
      try {
        const url = await payRefusedTopUp(deps, order, lang, c.req.query('token')!);
        return c.json({ url });
      } catch (error) {
        console.error('auto top-ups: payment page not made', order.id, error instanceof Error ? error.message : error);
        return unavailable(c);
      }
    })
    .post('/link/off', async (c) => {
      const link = linkOf(c);
      if (link?.purpose !== 'off' || !isUuid(link.esimId)) return invalidLink(c);
      await db.transaction((tx) => store.turnOff(tx, link.esimId, 'e-mail link', 'turned off from an e-mail'));
      return c.json({ enabled: false });
    });
}

/**
 * Stripe's page for a refused automatic top-up: the same order, the same price, paid on-session
 * (the bank may ask the buyer to authenticate there). One open page at a time: one still open is
 * shown again; a new one replaces one that expired (the webhook then matches the order's page).
 */
async function payRefusedTopUp(
  deps: AutoTopUpRouteDeps,
  order: NonNullable<Awaited<ReturnType<ReturnType<typeof createOrderStore>['byId']>>>,
  lang: Locale,
  /** The link's token: Stripe's page comes back to the link's page, which needs no sign-in. */
  token: string,
): Promise<string> {
  const { db, stripe } = deps;
  const [page] = await db.query<{ checkout_session_id: string; checkout_url: string }>(
    'SELECT checkout_session_id, checkout_url FROM order_checkouts WHERE order_id = $1',
    [order.id],
  );
  if (page && (await stripe.checkout.sessions.retrieve(page.checkout_session_id)).status === 'open') return page.checkout_url;
  const session = await createCheckoutSession(stripe, {
    paysFor: { orderId: order.id },
    email: order.email,
    lang,
    lines: [
      {
        productName: productName(deps.destination(order.destination, lang).name, order.plan, lang),
        amountMinor: order.amount_minor,
        quantity: 1,
      },
    ],
    currency: order.currency,
    successUrl: `${deps.siteUrl}${autoTopUpPagePath(lang, token)}&paid=1`,
    cancelUrl: `${deps.siteUrl}${autoTopUpPagePath(lang, token)}`,
    // Stripe's shortest: the link itself stays valid, and makes a new page when this one has expired.
    expiresAt: new Date(Date.now() + 31 * 60_000),
  });
  await db.query(
    `INSERT INTO order_checkouts (order_id, checkout_session_id, checkout_url) VALUES ($1, $2, $3)
     ON CONFLICT (order_id) DO UPDATE SET checkout_session_id = excluded.checkout_session_id, checkout_url = excluded.checkout_url,
       created_at = now(), settled_at = NULL, checked_at = NULL`,
    [order.id, session.id, session.url],
  );
  return session.url;
}

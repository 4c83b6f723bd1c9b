import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { Snapshot } from '../../catalogue/schema.ts';
import type { Currency } from '../../config/currencies.ts';
import { DIAGNOSIS_READ_EVERY_MS, TRAVELLER_TOKEN_HEADER } from '../../config/constants.ts';
import { Traveller, type EsimList, type EsimSteps, type TravellerLink } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimAlerts, OrderRunner } from './services.types.ts';
import { topUpPlans } from '../orders/top-up-answers.ts';
import { topUpsOf } from '../orders/top-ups.ts';
import { forAWaitingBuyer } from '../partner/partner.ts';
import type { Partners } from '../partner/registry.types.ts';
import { refuse } from '../refusals.ts';
import type { UserLimiter } from '../limits.types.ts';
import { isUuid } from '../uuid.ts';
import { esimOfTravellerToken } from '../travellers/links.ts';
import { shareWithTraveller, revokeTravellerLink, type ShareDeps } from '../travellers/share.ts';
import { jsonBody, langQuery, topUpQuery } from '../validation.ts';
import { buyerRefund } from './buyer-refund.ts';
import { freshEsimReads } from './fresh-usage.ts';
import { refreshEsims } from './refresh.ts';
import { replaceEsim } from './replacement.ts';
import type { EsimStore, OwnedEsim } from './store.types.ts';
import { esimStep, esimView, type DestinationOf } from './view.ts';

export interface EsimRoutesDeps {
  db: Db;
  auth: MiddlewareHandler<BuyerEnv>;
  esims: EsimStore;
  destination: DestinationOf;
  partners: Partners;
  fulfilment: OrderRunner;
  limits: UserLimiter;
  alerts: EsimAlerts;
  travellerMail: ShareDeps['mail'];
  /** The snapshot's rates: top-ups are priced on them as the plans are. */
  catalogue: Pick<Snapshot, 'exchangeRates'>;
}

/**
 * My eSIMs (DESIGN 6), mounted at /esims: the caller's eSIMs with install codes and data use, the
 * partner's top-ups of one, and the refund of a never-installed one. Only the owner ever gets an eSIM's codes.
 */
export function esimRoutes(deps: EsimRoutesDeps) {
  const { esims, destination, partners, limits, alerts } = deps;
  const app = new Hono<BuyerEnv>().use('*', deps.auth);

  const freshEsims = freshEsimReads(deps);

  const owned = async (c: Context<BuyerEnv>) => {
    const id = c.req.param('id') ?? '';
    return isUuid(id) ? esims.ownedOne(c.get('caller').uid, id) : undefined;
  };

  /** An eSIM as its owner sees it (EsimView), in the page's language. */
  const esimAnswer = async (c: Context<BuyerEnv>, { order, esim }: OwnedEsim, lang: Locale) =>
    c.json(await esimView(order, esim, destination(order.destination, lang)));

  app.get('/', langQuery, async (c) => {
    const { lang } = c.req.valid('query');
    const uid = c.get('caller').uid;
    const list = await freshEsims(uid);
    // Seen on My eSIMs: no 'eSIM ready' push for these.
    await alerts.seen(list.map(({ order }) => order));
    const body: EsimList = {
      esims: await Promise.all(list.map(({ order, esim }) => esimView(order, esim, destination(order.destination, lang)))),
    };
    return c.json(body);
  });

  // My eSIMs' live status while the page is open: from our database only (the partner's
  // notifications keep it current), so a page polling it costs the partner nothing.
  app.get('/steps', async (c) => {
    const now = new Date();
    const list = await esims.ownedBy(c.get('caller').uid);
    const body: EsimSteps = {
      esims: list.map(({ order, esim }) => {
        const { status, installStep, installStepAt } = esimStep(order, esim, now);
        return { id: order.id, status, installStep, installStepAt };
      }),
    };
    return c.json(body);
  });

  /**
   * "Not working?" (issue 32): the eSIM as the partner has it now, for the diagnosis. Its state and
   * data use are read again (one esim/query, which answers both) at most once a minute per eSIM
   * across every instance (DIAGNOSIS_READ_EVERY_MS); otherwise, or when the partner cannot answer,
   * the last known state answers. What was read is checked for alerts, as every read is.
   */
  app.get('/:id/diagnosis', langQuery, async (c) => {
    const { lang } = c.req.valid('query');
    let found = await owned(c);
    if (!found) return refuse(c, { outcome: 'no_such_esim' });
    const { order, esim } = found;
    if (esim && order.state === 'delivered' && (await esims.claimStateRead(esim, DIAGNOSIS_READ_EVERY_MS))) {
      try {
        await refreshEsims(partners, esims, [esim], { usage: false, alerts, read: forAWaitingBuyer() });
        found = (await owned(c)) ?? found;
      } catch (error) {
        console.error('esims: the diagnosis could not read', esim.esim_tran_no, error instanceof Error ? error.message : error);
      }
    }
    return esimAnswer(c, found, lang);
  });

  app.get('/:id/top-ups', topUpQuery, async (c) => {
    const { lang, currency } = c.req.valid('query');
    const uid = c.get('caller').uid;
    // A traveller's link lets whoever holds it, signed in, top the eSIM up (issue 33).
    const found = (await owned(c)) ?? (await esimOfTravellerToken(esims, c.req.header(TRAVELLER_TOKEN_HEADER), c.req.param('id')));
    if (!found) return refuse(c, { outcome: 'no_such_esim' });
    // Each look that gets as far as the partner asks it for the eSIM's own top-ups: a few dozen a minute per user.
    // In the visitor's currency, else in the one the eSIM was bought in (issue 34).
    const pricing = { currency: currency ?? (found.order.currency as Currency), rates: deps.catalogue.exchangeRates.applied };
    const topUps = await topUpsOf(found, partners, pricing, () => limits.refuse(c, 'topUps', uid));
    if ('held' in topUps) return topUps.held;
    if ('none' in topUps) return refuse(c, { outcome: topUps.none });
    return c.json(topUpPlans(destination(found.order.destination, lang), topUps.offers));
  });

  app.post('/:id/refund', langQuery, async (c) => {
    const refund = await buyerRefund(deps, c.get('caller').uid, c.req.param('id'));
    if (refund.outcome !== 'requested') return refuse(c, refund);
    return esimAnswer(c, refund.owned, c.req.valid('query').lang);
  });

  app.post('/:id/replace', langQuery, async (c) => {
    const replaced = await replaceEsim(deps, c.get('caller').uid, c.req.param('id'));
    if (replaced.outcome !== 'replaced') return refuse(c, replaced);
    return esimAnswer(c, replaced.replacement, c.req.valid('query').lang);
  });

  // Giving an eSIM to a traveller (issue 33): a new private link, e-mailed to them when an address is given.
  app.put('/:id/traveller', ...jsonBody(Traveller), async (c) => {
    const shared = await shareWithTraveller(
      { ...deps, mail: deps.travellerMail },
      c.get('caller').uid,
      c.req.param('id'),
      c.req.valid('json'),
    );
    if (shared.outcome !== 'shared') return refuse(c, shared);
    const body: TravellerLink = { link: shared.link, emailedTo: shared.emailedTo };
    return c.json(body);
  });

  app.delete('/:id/traveller-link', async (c) => {
    if (!(await revokeTravellerLink(deps, c.get('caller').uid, c.req.param('id')))) return refuse(c, { outcome: 'no_such_esim' });
    return c.body(null, 204);
  });

  return app;
}

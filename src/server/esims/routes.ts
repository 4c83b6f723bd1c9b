import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { Snapshot } from '../../catalogue/schema.ts';
import type { Currency } from '../../config/currencies.ts';
import { DIAGNOSIS_READ_EVERY_MS, ESIM_USAGE_MAX_AGE_MS, TRAVELLER_TOKEN_HEADER } from '../../config/constants.ts';
import { ERROR_CODES, Traveller, type EsimList, type EsimSteps, type TopUpPlans, type TravellerLink } from '../../contract/shop-api.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Db } from '../db/db.ts';
import type { EsimAlerts, OrderRunner } from './services.types.ts';
import { noTopUps } from '../orders/top-up-answers.ts';
import { topUpsOf } from '../orders/top-ups.ts';
import { forAWaitingBuyer, type EsimPartner } from '../partner/partner.ts';
import { fail } from '../http.ts';
import { tooManyAttempts } from '../limits.ts';
import type { UserLimiter } from '../limits.types.ts';
import { isUuid } from '../uuid.ts';
import { esimOfTravellerToken } from '../travellers/links.ts';
import { shareWithTraveller, revokeTravellerLink, type ShareDeps } from '../travellers/share.ts';
import { jsonBody, langQuery, topUpQuery } from '../validation.ts';
import { buyerRefund } from './buyer-refund.ts';
import { refreshEsims } from './refresh.ts';
import { replaceEsim } from './replacement.ts';
import type { EsimStore, OwnedEsim } from './store.types.ts';
import { esimStep, esimView, type DestinationOf } from './view.ts';

export interface EsimRoutesDeps {
  db: Db;
  auth: MiddlewareHandler<BuyerEnv>;
  esims: EsimStore;
  destination: DestinationOf;
  partner: EsimPartner;
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
  const { esims, destination, partner, limits, alerts } = deps;
  const app = new Hono<BuyerEnv>().use('*', deps.auth);

  /**
   * Data use older than 5 minutes is read again from the partner, in its batch call (10 eSIMs a
   * call), never one call per eSIM: states come with the partner's notifications, and its
   * DATA_USAGE notifications keep the figures fresh between reads. If it cannot answer, or the
   * user's reads of it ran out for the minute (limits.ts), the last known is shown.
   * What was read is checked for alerts after the answer (the same thresholds as the notifications').
   */
  async function withFreshUsage(owned: OwnedEsim[], uid: string): Promise<OwnedEsim[]> {
    const now = Date.now();
    const stale = owned.flatMap(({ order, esim }) =>
      esim &&
      order.state === 'delivered' &&
      !['cancelled', 'expired'].includes(esim.status) &&
      (!esim.usage_checked_at || now - esim.usage_checked_at.getTime() > ESIM_USAGE_MAX_AGE_MS)
        ? [esim.esim_tran_no]
        : [],
    );
    if (stale.length === 0) return owned;
    if ((await limits.take('usage', uid)) !== undefined) return owned;
    try {
      for (const usage of await partner.usage(stale, forAWaitingBuyer())) await esims.recordUsage(usage);
    } catch (error) {
      console.error('esims: the partner could not refresh', stale.length, 'eSIMs:', error instanceof Error ? error.message : error);
      return owned;
    }
    void alerts.check(stale);
    return esims.ownedBy(uid);
  }

  /**
   * One read of a user's eSIMs at a time on this instance: concurrent requests (a burst, several
   * tabs) share it, and so its partner call for stale data use.
   */
  const reading = new Map<string, Promise<OwnedEsim[]>>();
  function freshEsims(uid: string): Promise<OwnedEsim[]> {
    let read = reading.get(uid);
    if (!read) {
      read = esims
        .ownedBy(uid)
        .then((owned) => withFreshUsage(owned, uid))
        .finally(() => reading.delete(uid));
      reading.set(uid, read);
    }
    return read;
  }

  const owned = async (c: Context<BuyerEnv>) => {
    const id = c.req.param('id') ?? '';
    return isUuid(id) ? esims.ownedOne(c.get('caller').uid, id) : undefined;
  };

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
    if (!found) return fail(c, 404, ERROR_CODES.notFound, 'No such eSIM.');
    const { order, esim } = found;
    if (esim && order.state === 'delivered' && (await esims.claimStateRead(esim.esim_tran_no, DIAGNOSIS_READ_EVERY_MS))) {
      try {
        await refreshEsims(partner, esims, [esim.esim_tran_no], { usage: false, alerts, read: forAWaitingBuyer() });
        found = (await owned(c)) ?? found;
      } catch (error) {
        console.error('esims: the diagnosis could not read', esim.esim_tran_no, error instanceof Error ? error.message : error);
      }
    }
    return c.json(await esimView(found.order, found.esim, destination(found.order.destination, lang)));
  });

  app.get('/:id/top-ups', topUpQuery, async (c) => {
    const { lang, currency } = c.req.valid('query');
    const uid = c.get('caller').uid;
    // A traveller's link lets whoever holds it, signed in, top the eSIM up (issue 33).
    const found = (await owned(c)) ?? (await esimOfTravellerToken(esims, c.req.header(TRAVELLER_TOKEN_HEADER), c.req.param('id')));
    if (!found) return fail(c, 404, ERROR_CODES.notFound, 'No such eSIM.');
    // Each look that gets as far as the partner asks it for the eSIM's own top-ups: a few dozen a minute per user.
    // In the visitor's currency, else in the one the eSIM was bought in (issue 34).
    const pricing = { currency: currency ?? (found.order.currency as Currency), rates: deps.catalogue.exchangeRates.applied };
    const topUps = await topUpsOf(found, partner, pricing, () => limits.refuse(c, 'topUps', uid));
    if ('held' in topUps) return topUps.held;
    if ('none' in topUps) return noTopUps(c, topUps.none);
    const body: TopUpPlans = {
      destination: destination(found.order.destination, lang),
      plans: topUps.offers.map(({ id, pkg, price }) => ({
        id,
        dataAmount: pkg.dataAmount,
        validity: pkg.validity,
        validityUnit: pkg.validityUnit,
        supportedCountries: pkg.countries,
        price,
      })),
    };
    return c.json(body);
  });

  app.post('/:id/refund', langQuery, async (c) => {
    const { lang } = c.req.valid('query');
    const refund = await buyerRefund(deps, c.get('caller').uid, c.req.param('id'));
    switch (refund.outcome) {
      case 'too_many_attempts':
        return tooManyAttempts(c, refund.retryAfterSeconds);
      case 'no_such_esim':
        return fail(c, 404, ERROR_CODES.notFound, 'No such eSIM.');
      case 'not_refundable':
        return fail(c, 409, ERROR_CODES.notRefundable, 'This eSIM was installed or bought more than 30 days ago: it cannot be refunded.');
      case 'partner_unavailable':
        return fail(c, 503, ERROR_CODES.partnerUnavailable, 'The eSIM provider could not be reached. Please try again.');
      case 'requested': {
        const { order, esim } = refund.owned;
        return c.json(await esimView(order, esim, destination(order.destination, lang)));
      }
    }
  });

  app.post('/:id/replace', langQuery, async (c) => {
    const { lang } = c.req.valid('query');
    const replaced = await replaceEsim(deps, c.get('caller').uid, c.req.param('id'));
    switch (replaced.outcome) {
      case 'too_many_attempts':
        return tooManyAttempts(c, replaced.retryAfterSeconds);
      case 'no_such_esim':
        return fail(c, 404, ERROR_CODES.notFound, 'No such eSIM.');
      case 'not_replaceable':
        return fail(
          c,
          409,
          ERROR_CODES.notReplaceable,
          'Only an eSIM never downloaded, or deleted before it carried data, within 30 days of purchase is replaced.',
        );
      case 'partner_unavailable':
        return fail(c, 503, ERROR_CODES.partnerUnavailable, 'The eSIM provider could not be reached. Please try again.');
      case 'replaced': {
        const { order, esim } = replaced.replacement;
        return c.json(await esimView(order, esim, destination(order.destination, lang)));
      }
    }
  });

  // Giving an eSIM to a traveller (issue 33): a new private link, e-mailed to them when an address is given.
  app.put('/:id/traveller', ...jsonBody(Traveller), async (c) => {
    const shared = await shareWithTraveller(
      { ...deps, mail: deps.travellerMail },
      c.get('caller').uid,
      c.req.param('id'),
      c.req.valid('json'),
    );
    switch (shared.outcome) {
      case 'no_such_esim':
        return fail(c, 404, ERROR_CODES.notFound, 'No such eSIM.');
      case 'not_shareable':
        return fail(c, 409, ERROR_CODES.notShareable, 'Only a delivered eSIM that has not ended can be given to a traveller.');
      case 'too_many_attempts':
        return tooManyAttempts(c, shared.retryAfterSeconds);
      case 'shared': {
        const body: TravellerLink = { link: shared.link, emailedTo: shared.emailedTo };
        return c.json(body);
      }
    }
  });

  app.delete('/:id/traveller-link', async (c) => {
    if (!(await revokeTravellerLink(deps, c.get('caller').uid, c.req.param('id'))))
      return fail(c, 404, ERROR_CODES.notFound, 'No such eSIM.');
    return c.body(null, 204);
  });

  return app;
}

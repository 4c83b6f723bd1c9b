import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { AUTO_TOP_UP } from '../../config/auto-top-ups.ts';
import { TERMS_VERSION } from '../../contract/shop-api.ts';
import type { Currency } from '../../config/currencies.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { PerEuro } from '../../pricing/exchange-rates.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import type { EsimStore } from '../esims/store.types.ts';
import type { OrderRunner } from '../esims/services.types.ts';
import type { DestinationOf } from '../esims/view.ts';
import * as jobs from '../jobs/queue.ts';
import { productName } from '../orders/place-order.ts';
import { createOrderStore, insertOrder } from '../orders/store.ts';
import type { NewOrder } from '../orders/store.types.ts';
import { soldTopUp, topUpsOf } from '../orders/top-ups.ts';
import type { Partners } from '../partner/registry.types.ts';
import { chargeOffSession, earlierCharge } from '../payments/off-session.ts';
import type { AutoTopUpRow } from './auto-top-ups.types.ts';
import type { AutoTopUpNotices } from './notices.ts';
import * as store from './store.ts';

export interface ChargeJobDeps {
  db: Db;
  stripe: Stripe;
  esims: Pick<EsimStore, 'ownedOne'>;
  partners: Partners;
  /** The snapshot's applied rates: a top-up is priced as the buyer's own would be. */
  rates: PerEuro;
  destination: DestinationOf;
  /** Delivers a charged top-up (the top-up workflow: applied at the eSIM's partner, or refunded). */
  fulfilment: Pick<OrderRunner, 'run'>;
  notices: AutoTopUpNotices;
}

/** Why a crossing's automatic top-up was not charged (auto_top_ups.why). */
export type Skipped = 'turned_off' | 'no_card' | 'not_owned' | 'count_limit' | 'monthly_limit' | 'no_top_ups' | 'package_gone';

/** A charge Stripe answers still on its way (processing) is read again after this long. */
const LOOK_AGAIN_MS = 30_000;

const KEY = /^auto-top-up:([0-9a-f-]{36}):(.+)$/;

/**
 * One crossing's automatic top-up, run as a job (jobs/queue.ts, kind 'auto_top_up', its key the
 * eSIM and the crossing), each step reading what is stored before it acts, so a run that stopped
 * anywhere is taken up by the next:
 *
 * 1. due: the buyer's limits and card checked, the top-up priced now as theirs would be, and its
 *    order (kind 'auto') made, or the crossing skipped with why;
 * 2. charging: the saved card charged off-session (payments/off-session.ts: Stripe read first, so a
 *    lost answer never charges twice); paid, the order goes to the top-up workflow, which applies it
 *    at the eSIM's partner or refunds it; refused (the bank asks for authentication, or declines),
 *    nothing is charged, and three refusals in a row turn automatic top-ups of the eSIM off;
 * 3. the buyer told of a refusal (with the link that pays the same top-up on-session) or of a
 *    limit reached, once.
 *
 * Every write checks the job's lease in its transaction, so a worker whose claim lapsed writes nothing.
 */
export function createChargeJob(deps: ChargeJobDeps) {
  const { db, stripe } = deps;
  const orders = createOrderStore(db);

  /** The top-up the buyer agreed to, as an order now, or why there is none. */
  async function prepare(row: AutoTopUpRow, now: Date): Promise<{ order: NewOrder; customerId: string } | { skipped: Skipped }> {
    const setting = await store.settingOf(db, row.esim_order_id);
    if (!setting?.enabled || !setting.uid) return { skipped: 'turned_off' };
    const card = await store.savedCard(db, setting.uid);
    if (!card?.payment_method_id) return { skipped: 'no_card' };
    const owned = await deps.esims.ownedOne(setting.uid, row.esim_order_id);
    if (!owned) return { skipped: 'not_owned' };
    const spent = await store.spentOn(db, row.esim_order_id, now);
    if (spent.count >= setting.max_count) return { skipped: 'count_limit' };
    const topUps = await topUpsOf(owned, deps.partners, { currency: owned.order.currency as Currency, rates: deps.rates });
    if ('none' in topUps) {
      // The partner did not answer: asked again (the job's backoff), not skipped.
      if (topUps.none === 'partner_unavailable')
        throw new Error(`auto top-up of ${row.esim_order_id}: the partner did not list its top-ups`);
      return { skipped: 'no_top_ups' };
    }
    if (!('offers' in topUps)) return { skipped: 'no_top_ups' };
    const offer = setting.package_id ? topUps.offers.find((o) => o.id === setting.package_id) : topUps.offers[0];
    if (!offer) return { skipped: 'package_gone' };
    if (offer.price.currency !== setting.currency || spent.thisMonthMinor + offer.price.amountMinor > setting.monthly_cap_minor)
      return { skipped: 'monthly_limit' };
    const { order } = owned;
    return {
      customerId: card.stripe_customer_id,
      order: {
        uid: setting.uid,
        email: order.email,
        emailVerified: order.email_verified,
        plan: soldTopUp(offer),
        destination: order.destination,
        partner: owned.esim!.partner,
        partnerCode: offer.pkg.partnerCode,
        wholesaleUsdE4: offer.pkg.wholesaleUsdE4,
        price: offer.price,
        lang: setting.consent_lang,
        termsVersion: TERMS_VERSION,
        // The buyer agreed to this top-up, its price and its immediate start when they turned it on.
        consentedAt: setting.consented_at,
        topUpOf: row.esim_order_id,
        automatic: true,
        tripStartsOn: null,
        exchangeOf: null,
      },
    };
  }

  /** Charges the crossing's order on the saved card, and stores what Stripe said, in one transaction. */
  async function charge(row: AutoTopUpRow, attempt: number, fenced: Fenced): Promise<jobs.NextRun> {
    const order = await orders.byId(db, row.order_id!);
    if (!order) throw new Error(`auto top-up ${row.order_id}: its order is gone`);
    // Only this job ends the order (open-order reuse and cancelling a person's open orders leave kind 'auto' alone).
    if (order.state !== 'pending_payment') return { kind: 'done' };
    const setting = await store.settingOf(db, row.esim_order_id);
    const card = order.uid ? await store.savedCard(db, order.uid) : undefined;
    // Turned off, or the card removed, since the order was made (the buyer, an e-mail's link, support, the account deleted).
    const stopped: Skipped | undefined = !setting?.enabled ? 'turned_off' : !card?.payment_method_id ? 'no_card' : undefined;
    // A try before may have charged (its answer lost): stopped, Stripe says, on the Customer kept from then.
    const customerId = row.stripe_customer_id ?? card?.stripe_customer_id;
    const earlier = stopped && customerId ? await earlierCharge(stripe, customerId, order.id) : undefined;
    if (stopped && (!earlier || earlier.status === 'refused')) {
      await fenced(async (tx) => {
        await orders.move(tx, order.id, 'cancelled', `auto_top_up: ${stopped}`);
        await store.setState(tx, row, 'skipped', stopped);
      });
      return { kind: 'done' };
    }
    const lang = order.lang as Locale;
    const charged =
      earlier ??
      (await chargeOffSession(stripe, {
        orderId: order.id,
        customerId: card!.stripe_customer_id,
        paymentMethodId: card!.payment_method_id!,
        amountMinor: order.amount_minor,
        currency: order.currency,
        description: productName(deps.destination(order.destination, lang).name, order.plan, lang),
        attempt,
      }));
    if (charged.status === 'pending') return { kind: 'look_again', inMs: LOOK_AGAIN_MS };
    if (charged.status === 'succeeded') {
      await fenced(async (tx) => {
        await orders.recordPayment(tx, order.id, {
          provider: 'stripe',
          checkoutSessionId: null,
          paymentIntentId: charged.paymentIntentId,
          status: 'paid',
          amountMinor: order.amount_minor,
          currency: order.currency,
          method: charged.method,
          receiptUrl: charged.receiptUrl,
        });
        await orders.move(tx, order.id, 'paid', `stripe:off_session ${charged.paymentIntentId}`);
        await store.setState(tx, row, 'charged', null, { paymentIntentId: charged.paymentIntentId });
        await store.countRefusal(tx, row.esim_order_id, false);
      });
      void deps.fulfilment.run(order.id);
      return { kind: 'done' };
    }
    await fenced(async (tx) => {
      await orders.move(tx, order.id, 'payment_failed', `stripe:off_session ${charged.reason}`);
      await store.setState(tx, row, 'refused', charged.reason, charged.paymentIntentId ? { paymentIntentId: charged.paymentIntentId } : {});
      const inRow = await store.countRefusal(tx, row.esim_order_id, true);
      if (inRow >= AUTO_TOP_UP.refusalsToTurnOff) await store.turnOff(tx, row.esim_order_id, 'shop', `${inRow} charges refused in a row`);
    });
    return tell(row);
  }

  /** Tells the buyer of a refused or skipped crossing once (a failed send is retried by the job). */
  async function tell(row: AutoTopUpRow): Promise<jobs.NextRun> {
    const now = (await store.autoTopUpOf(db, row.esim_order_id, row.crossing))!;
    if (!now.notified_at) {
      await deps.notices.tell(now);
      await store.markNotified(db, now);
    }
    return { kind: 'done' };
  }

  /** One run of the job; answers when it runs next. */
  async function step(key: string, attempt: number, fenced: Fenced, now = new Date()): Promise<jobs.NextRun> {
    const [, esimOrderId, crossing] = KEY.exec(key) ?? [];
    let row = esimOrderId && crossing ? await store.autoTopUpOf(db, esimOrderId, crossing) : undefined;
    if (!row) return { kind: 'done' };
    if (row.state === 'due') {
      const prepared = await prepare(row, now);
      const made = row;
      if ('skipped' in prepared) {
        await fenced((tx) => store.setState(tx, made, 'skipped', prepared.skipped));
        // A limit reached is news to the buyer (they may raise it, or top up themselves); the rest is not.
        return prepared.skipped === 'count_limit' || prepared.skipped === 'monthly_limit' ? tell(made) : { kind: 'done' };
      }
      const id = randomUUID();
      await fenced(async (tx) => {
        await insertOrder(tx, prepared.order, id, null, `auto_top_up ${made.crossing}`);
        await store.setState(tx, made, 'charging', null, { orderId: id, customerId: prepared.customerId });
      });
      row = (await store.autoTopUpOf(db, made.esim_order_id, made.crossing))!;
    }
    if (row.state === 'charging') return charge(row, attempt, fenced);
    if (row.state === 'refused' || row.state === 'skipped') return tell(row);
    return { kind: 'done' };
  }

  return { step };
}

/** Another worker holds the job now: this one stops without writing anything more. */
export class ClaimLost extends Error {
  constructor(key: string) {
    super(`${key}: another worker holds it now`);
    this.name = 'ClaimLost';
  }
}

/** A write under the job's claim: it runs only while the claim is still this worker's. */
export type Fenced = <T>(work: (tx: Queryable) => Promise<T>) => Promise<T>;

/** The fenced writes of one claim of a job (the order leases' fence, fulfilment/lease.ts, for a job that is no order's). */
export function fencedWrites(db: Db, job: jobs.JobRow): Fenced {
  return (work) =>
    db.transaction(async (tx) => {
      if ((await jobs.currentLease(tx, job.id, true)) !== job.lease) throw new ClaimLost(job.key);
      return work(tx);
    });
}

import type { DataKind } from '../../catalogue/schema.ts';
import {
  ALERT_READY_AFTER_MS,
  ALERT_READY_WITHIN_MS,
  ALERT_RETRY_FIRST_WAIT_MS,
  ALERT_RETRY_WITHIN_MS,
  ALERT_SEND_ATTEMPTS,
  ALERT_SENDS_AT_ONCE,
  ALERT_USAGE_BATCH_MS,
  ALERT_VALIDITY_LEFT_MS,
  ESIM_USAGE_MAX_AGE_MS,
  TRIP_CHECK_AFTER_START_MS,
  TRIP_CHECK_WITHIN_MS,
} from '../../config/constants.ts';
import { ALERT_CHANNELS, ALERT_KIND_CHANNELS, type AlertChannel, type AlertKind } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import type { Db } from '../db/db.ts';
import type { EsimRow, EsimStore } from '../esims/store.types.ts';
import { topUpSupported } from '../esims/view.ts';
import { alertEmail } from './alert-email.ts';
import type { Mailer } from '../mail/mailer.ts';
import { createOrderStore } from '../orders/store.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { EsimPartner } from '../partner/partner.ts';
import type { PushSender } from '../push/sender.ts';
import { createAlertRecords } from './alert-records.ts';
import type { AlertRecord, ChannelState } from './alert-records.types.ts';
import type { Alerts } from './alerts.types.ts';
import type { AlertPreferenceStore } from './preferences.types.ts';
import { pushDelivery, pushMessage, topUpPath, type AlertSubject } from './push-message.ts';
import { alertable, alertFacts, dueAlerts, unseenDelivery, type DueAlert } from './thresholds.ts';
import { unsubscribePageUrl, unsubscribeToken, unsubscribeUrl } from './unsubscribe-token.ts';

export interface AlertsOptions {
  db: Db;
  esims: EsimStore;
  partner: EsimPartner;
  mailer: Mailer;
  push: PushSender;
  preferences: AlertPreferenceStore;
  /** Without a trailing slash: the e-mails' and pushes' links. */
  siteUrl: string;
  /** Without a trailing slash: the one-click unsubscribe URL's base. */
  publicApiUrl: string;
  siteName: string;
  /** The unsubscribe tokens' key. */
  secret: string;
  destinationName: (code: string, lang: Locale) => string;
  /**
   * How a plan counts its data (the catalogue's facts.data.kind), by plan id: data alerts only for
   * a fixed total (thresholds.ts says why). A plan the catalogue no longer has counts as a total,
   * the kind of nearly every plan.
   */
  dataKindOf?: (planId: string) => DataKind['kind'] | undefined;
  /** How long after delivery an unseen eSIM gets the 'eSIM ready' push (tests make it short). */
  readyAfterMs?: number;
  /** How long DATA_USAGE hints gather before one batched usage read (tests make it short). */
  usageBatchMs?: number;
  /** How long a failed send waits for the reconcile job, doubled after each further failure (tests make it short). */
  retryFirstWaitMs?: number;
}

/** After a usage read the partner did not answer, the hints are read again this much later. */
const USAGE_RETRY_MS = 30_000;

const errorText = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/** Runs tasks at most `limit` at once; the others wait their turn, in order. */
function concurrencyLimit(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < limit) running += 1;
    // A task that ends hands its slot straight to the next one waiting.
    else await new Promise<void>((start) => waiting.push(start));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/**
 * The alerts engine (issue 23): which alerts are due (thresholds.ts), each claimed once in
 * esim_alerts before anything is sent (alert-records.ts), then sent by e-mail and Web Push as the
 * buyer chose; a send that fails stays pending for the reconcile job's `sweep`. The partner's
 * DATA_USAGE notifications are only hints: they gather for a moment and one batched usage read
 * says the real figures. Nothing ever goes about an order that is being or was refunded, or to an
 * account that was deleted (its orders are detached: no uid, no e-mail).
 */
export function createAlerts(options: AlertsOptions): Alerts {
  const { db, esims, partner, mailer, push, preferences, siteUrl } = options;
  const records = createAlertRecords(db);
  const orders = createOrderStore(db);
  const readyAfterMs = options.readyAfterMs ?? ALERT_READY_AFTER_MS;
  const usageBatchMs = options.usageBatchMs ?? ALERT_USAGE_BATCH_MS;
  const backoff = { firstWaitMs: options.retryFirstWaitMs ?? ALERT_RETRY_FIRST_WAIT_MS, maxAttempts: ALERT_SEND_ATTEMPTS };
  // A push service or mail relay that is slow to answer holds a few sends, never every one.
  const sendSlot = concurrencyLimit(ALERT_SENDS_AT_ONCE);

  /** Work under way, for `settle`; each never rejects (it logs). */
  const work = new Set<Promise<void>>();
  function track(task: Promise<void>, what: string): Promise<void> {
    const tracked = task.catch((error: unknown) => console.error('alerts:', what, errorText(error)));
    work.add(tracked);
    void tracked.finally(() => work.delete(tracked));
    return tracked;
  }
  const hinted = new Set<string>();
  let batchTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const readyTimers = new Map<string, NodeJS.Timeout>();

  /** Each channel's state when the alert is claimed: skipped unless it can and may go. */
  async function channelStates(order: OrderRow, kind: AlertKind): Promise<Record<AlertChannel, ChannelState>> {
    const state = async (channel: AlertChannel): Promise<ChannelState> => {
      if (!ALERT_KIND_CHANNELS[kind].includes(channel) || order.uid === null) return 'skipped';
      if (channel === 'email' && !order.email) return 'skipped';
      return (await preferences.allows(order.uid, kind, channel)) ? 'pending' : 'skipped';
    };
    return { email: await state('email'), push: await state('push') };
  }

  function emailOf(order: OrderRow, kind: AlertKind, subject: AlertSubject) {
    const lang = order.lang as Locale;
    const token = unsubscribeToken(options.secret, order.uid!, kind);
    const topUp = topUpPath(kind, subject, lang);
    return alertEmail({
      kind,
      lang,
      destinationName: options.destinationName(order.destination, lang),
      facts: subject.facts,
      topUpUrl: topUp && `${siteUrl}${topUp}`,
      myEsimsUrl: `${siteUrl}${localizePath(lang, '/my-esim')}`,
      unsubscribeUrl: unsubscribeUrl(options.publicApiUrl, token, lang),
      unsubscribePageUrl: unsubscribePageUrl(siteUrl, lang, token),
      preferencesUrl: `${siteUrl}${localizePath(lang, '/profile')}#alerts`,
      siteName: options.siteName,
    });
  }

  /** Sends the alert's pending channels (a few alerts at once) and records each outcome; what fails stays pending, with why. */
  function send(order: OrderRow, alert: AlertRecord): Promise<void> {
    return sendSlot(() => sendNow(order, alert));
  }

  async function sendNow(order: OrderRow, alert: AlertRecord): Promise<void> {
    const subject: AlertSubject = { orderId: order.id, topUpSupported: topUpSupported(order), facts: alert.facts };
    const failures: string[] = [];
    if (alert.states.email === 'pending') {
      try {
        await mailer.send({ ...emailOf(order, alert.kind, subject), to: order.email! });
        await records.settle(alert, 'email', 'sent');
      } catch (error) {
        failures.push(`email: ${errorText(error)}`);
      }
    }
    if (alert.states.push === 'pending') {
      try {
        const result = await push.sendToUser(
          order.uid!,
          (lang) => pushMessage(alert.kind, subject, lang, options.destinationName(order.destination, lang)),
          pushDelivery(alert.kind),
        );
        // No device left (none subscribed, or each one gone): nothing to send, now or later.
        if (result.sent > 0 || result.failed === 0) await records.settle(alert, 'push', result.sent > 0 ? 'sent' : 'skipped');
        else failures.push(`push: ${result.failed} device(s) failed`);
      } catch (error) {
        failures.push(`push: ${errorText(error)}`);
      }
    }
    if (failures.length > 0) {
      const givenUp = await records.failed(alert, failures.join('; '), backoff);
      console.error(
        givenUp
          ? `alerts: not sent after ${backoff.maxAttempts} attempts, given up`
          : 'alerts: not sent, the reconcile job tries again later',
        alert.kind,
        order.id,
        failures.join('; '),
      );
    }
  }

  /** Claims the alert (once per eSIM, kind and round), then sends it. */
  async function raise(order: OrderRow, esim: EsimRow, due: DueAlert): Promise<void> {
    const alert: AlertRecord = { esimTranNo: esim.esim_tran_no, ...due, orderId: order.id, states: await channelStates(order, due.kind) };
    if (await records.claim(alert)) await send(order, alert);
  }

  async function checkOne(esimTranNo: string, now: Date): Promise<void> {
    const esim = await esims.byTranNo(esimTranNo);
    const order = esim && (await orders.byId(db, esim.order_id));
    if (!esim || !order) return;
    const dataKind = options.dataKindOf?.(order.plan.id) ?? 'total';
    const trip = { ...order, trip_starts_on: await records.tripStartOf(order.id) };
    for (const due of dueAlerts(trip, esim, dataKind, now)) await raise(order, esim, due);
  }

  /** 'eSIM ready' for an order whose eSIM the buyer has not seen since delivery. */
  async function ready(orderId: string): Promise<void> {
    const order = await orders.byId(db, orderId);
    if (!order || !unseenDelivery(order, await records.seenAt(orderId)) || order.uid === null) return;
    const esim = await esims.ofOrder(db, orderId);
    if (!esim || !alertable(order, esim)) return;
    await raise(order, esim, { kind: 'esim_ready', round: 'ready', facts: alertFacts(esim) });
  }

  /**
   * The hints gathered so far: one usage read (the adapter asks 10 eSIMs a call, within the
   * partner's budget), stored, then checked. When the partner cannot answer they wait for the next
   * read (the partner does not repeat a threshold's notification).
   */
  async function readHinted(): Promise<void> {
    const batch = [...hinted];
    hinted.clear();
    let usages;
    try {
      usages = await partner.usage(batch);
    } catch (error) {
      for (const esimTranNo of batch) hinted.add(esimTranNo);
      schedule(USAGE_RETRY_MS);
      throw error;
    }
    for (const usage of usages) await esims.recordUsage(usage);
    await check(batch);
  }

  function schedule(inMs: number): void {
    if (stopped || batchTimer) return;
    batchTimer = setTimeout(() => {
      batchTimer = undefined;
      void track(readHinted(), 'usage read failed');
    }, inMs).unref();
  }

  /** A DATA_USAGE hint, or an eSIM whose usage the sweep must know: read in the next batch, then checked. */
  function usageHint(esimTranNo: string): void {
    hinted.add(esimTranNo);
    schedule(usageBatchMs);
  }

  /** A pending alert the job picked up: sent again unless it should no longer go (refunded, deleted, turned off meanwhile). */
  async function retry(alert: AlertRecord): Promise<void> {
    const order = await orders.byId(db, alert.orderId);
    const esim = await esims.byTranNo(alert.esimTranNo);
    const may = order && esim && alertable(order, esim) ? await channelStates(order, alert.kind) : undefined;
    const states = { ...alert.states };
    for (const channel of ALERT_CHANNELS) {
      if (states[channel] !== 'pending' || may?.[channel] === 'pending') continue;
      states[channel] = 'skipped';
      await records.settle(alert, channel, 'skipped');
    }
    if (order && ALERT_CHANNELS.some((channel) => states[channel] === 'pending')) await send(order, { ...alert, states });
  }

  /** Usage or state of these eSIMs was just stored: sends what is due. Never rejects; the work is tracked for `settle`. */
  function check(esimTranNos: readonly string[]): Promise<void> {
    const now = new Date();
    return track(
      (async () => {
        for (const esimTranNo of new Set(esimTranNos)) await checkOne(esimTranNo, now);
      })(),
      'check failed',
    );
  }

  return {
    usageHint,

    check,

    /** An eSIM order was delivered and its e-mail sent: 'eSIM ready' later if the buyer has not seen it. */
    delivered(orderId: string): void {
      if (stopped) return;
      clearTimeout(readyTimers.get(orderId));
      const timer = setTimeout(() => {
        readyTimers.delete(orderId);
        void track(ready(orderId), 'ready alert failed');
      }, readyAfterMs).unref();
      readyTimers.set(orderId, timer);
    },

    /** The buyer was shown these orders' eSIMs (the payment page's answer, My eSIMs): those delivered and not yet seen are marked. */
    seen(shown: readonly Pick<OrderRow, 'id' | 'kind' | 'state'>[]): Promise<void> {
      return records.markSeen(shown.filter((order) => unseenDelivery(order)).map((order) => order.id));
    },

    /**
     * The reconcile job's part: ready alerts due whose timer a restart lost, '1 day left' of eSIMs
     * in their last day that no notification raised (from the stored end: no partner call), eSIMs
     * still offline the day after their trip began (one usage read each, then the checklist), and
     * failed sends whose wait is over (younger than a day). Answers how many it found; they are
     * sent after it answers (tracked for `settle`), so a push service or mail relay that is slow to
     * answer never holds up the job's deliveries, refunds and checkout sync.
     */
    async sweep(): Promise<number> {
      const lost = (await records.readyDue(readyAfterMs, ALERT_READY_WITHIN_MS)).filter((id) => !readyTimers.has(id));
      const ending = await records.validityDue(ALERT_VALIDITY_LEFT_MS);
      const retries = await records.takeRetries(ALERT_RETRY_WITHIN_MS);
      // Trips that began with the eSIM still offline: their usage is read (batched, like a hint), then checked.
      const offline = await records.tripCheckDue(TRIP_CHECK_AFTER_START_MS, TRIP_CHECK_WITHIN_MS, ESIM_USAGE_MAX_AGE_MS);
      for (const esimTranNo of offline) usageHint(esimTranNo);
      for (const id of lost) void track(ready(id), 'ready alert failed');
      void check(ending);
      for (const alert of retries) void track(retry(alert), 'retry failed');
      return lost.length + ending.length + retries.length + offline.length;
    },

    /** Waits for the work under way, reading any gathered hints now (a clean stop; tests). */
    async settle(): Promise<void> {
      if (batchTimer) {
        clearTimeout(batchTimer);
        batchTimer = undefined;
        void track(readHinted(), 'usage read failed');
      }
      while (work.size > 0) await Promise.all(work);
    },

    /** Stops the ready timers (the reconcile job sends them after a restart), then settles. */
    async stop(): Promise<void> {
      stopped = true;
      for (const timer of readyTimers.values()) clearTimeout(timer);
      readyTimers.clear();
      await this.settle();
    },
  };
}

import type { DataKind } from '../../catalogue/schema.ts';
import { ALERT_RETRY_FIRST_WAIT_MS, ALERT_SEND_ATTEMPTS, ALERT_SENDS_AT_ONCE } from '../../config/constants.ts';
import { ALERT_CHANNELS, ALERT_KIND_CHANNELS, type AlertChannel, type AlertKind } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimKey, EsimRow, EsimStore } from '../esims/store.types.ts';
import { topUpSupported } from '../esims/view.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import { createOrderStore } from '../orders/store.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { PushSender } from '../push/sender.types.ts';
import { alertEmail } from './alert-email.ts';
import type { AlertRecord, AlertRecords, ChannelState } from './alert-records.types.ts';
import type { AlertPreferenceStore } from './preferences.types.ts';
import { pushDelivery, pushMessage, topUpPath, type AlertSubject } from './push-message.ts';
import { alertable, alertFacts, dueAlerts, unseenDelivery, type DueAlert } from './thresholds.ts';
import { unsubscribePageUrl, unsubscribeToken, unsubscribeUrl } from './unsubscribe-token.ts';

/** What sending an alert needs: the order and its eSIM, the buyer's choices, the two channels and what the messages link to. */
export interface AlertSenderOptions {
  db: Db;
  esims: EsimStore;
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
  /** How long a failed send waits for the reconcile job, doubled after each further failure (tests make it short). */
  retryFirstWaitMs?: number;
  /** The automatic top-ups (issue 49, auto-top-ups/): each check tells them the eSIM's usage, which may make one due. */
  autoTopUps?: { crossed(order: OrderRow, esim: EsimRow, dataKind: DataKind['kind']): Promise<void> };
}

export const errorText = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

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

/** Each channel's state when the alert is claimed: skipped unless it can and may go. */
async function channelStates(
  preferences: AlertPreferenceStore,
  order: OrderRow,
  kind: AlertKind,
): Promise<Record<AlertChannel, ChannelState>> {
  const state = async (channel: AlertChannel): Promise<ChannelState> => {
    if (!ALERT_KIND_CHANNELS[kind].includes(channel) || order.uid === null) return 'skipped';
    if (channel === 'email' && !order.email) return 'skipped';
    return (await preferences.allows(order.uid, kind, channel)) ? 'pending' : 'skipped';
  };
  return { email: await state('email'), push: await state('push') };
}

function emailOf(options: AlertSenderOptions, order: OrderRow, kind: AlertKind, subject: AlertSubject) {
  const { siteUrl } = options;
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

/**
 * The alerts engine's sending (alerts.ts decides when): an eSIM's due alerts, an order's 'eSIM
 * ready' and a pending alert's retry, each claimed once in esim_alerts (alert-records.ts) before
 * it is sent, a few sends at once.
 */
export function createAlertSender(options: AlertSenderOptions, records: AlertRecords) {
  const { db, esims, mailer, push, preferences } = options;
  const orders = createOrderStore(db);
  const backoff = { firstWaitMs: options.retryFirstWaitMs ?? ALERT_RETRY_FIRST_WAIT_MS, maxAttempts: ALERT_SEND_ATTEMPTS };
  // A push service or mail relay that is slow to answer holds a few sends, never every one.
  const sendSlot = concurrencyLimit(ALERT_SENDS_AT_ONCE);

  /** Sends the alert's pending channels (a few alerts at once) and records each outcome; what fails stays pending, with why. */
  function send(order: OrderRow, alert: AlertRecord): Promise<void> {
    return sendSlot(() => sendNow(order, alert));
  }

  async function sendNow(order: OrderRow, alert: AlertRecord): Promise<void> {
    const subject: AlertSubject = { orderId: order.id, topUpSupported: topUpSupported(order), facts: alert.facts };
    const failures: string[] = [];
    if (alert.states.email === 'pending') {
      try {
        await mailer.send({ ...emailOf(options, order, alert.kind, subject), to: order.email! });
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
    const states = await channelStates(preferences, order, due.kind);
    const alert: AlertRecord = { partner: esim.partner, esimTranNo: esim.esim_tran_no, ...due, orderId: order.id, states };
    if (await records.claim(alert)) await send(order, alert);
  }

  /** The eSIM's alerts due now (its usage or state was just stored), each raised. */
  async function checkOne(key: EsimKey, now: Date): Promise<void> {
    const esim = await esims.byKey(key);
    const order = esim && (await orders.byId(db, esim.order_id));
    if (!esim || !order) return;
    const dataKind = options.dataKindOf?.(order.plan.id) ?? 'total';
    const trip = { ...order, trip_starts_on: await records.tripStartOf(order.id) };
    for (const due of dueAlerts(trip, esim, dataKind, now)) await raise(order, esim, due);
    await options.autoTopUps?.crossed(order, esim, dataKind);
  }

  /** 'eSIM ready' for an order whose eSIM the buyer has not seen since delivery. */
  async function ready(orderId: string): Promise<void> {
    const order = await orders.byId(db, orderId);
    if (!order || !unseenDelivery(order, await records.seenAt(orderId)) || order.uid === null) return;
    const esim = await esims.ofOrder(db, orderId);
    if (!esim || !alertable(order, esim)) return;
    await raise(order, esim, { kind: 'esim_ready', round: 'ready', facts: alertFacts(esim) });
  }

  /** A pending alert the job picked up: sent again unless it should no longer go (refunded, deleted, turned off meanwhile). */
  async function retry(alert: AlertRecord): Promise<void> {
    const order = await orders.byId(db, alert.orderId);
    const esim = await esims.byKey({ partner: alert.partner, esim_tran_no: alert.esimTranNo });
    const may = order && esim && alertable(order, esim) ? await channelStates(preferences, order, alert.kind) : undefined;
    const states = { ...alert.states };
    for (const channel of ALERT_CHANNELS) {
      if (states[channel] !== 'pending' || may?.[channel] === 'pending') continue;
      states[channel] = 'skipped';
      await records.settle(alert, channel, 'skipped');
    }
    if (order && ALERT_CHANNELS.some((channel) => states[channel] === 'pending')) await send(order, { ...alert, states });
  }

  return { checkOne, ready, retry };
}

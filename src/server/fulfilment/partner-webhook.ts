import type { Alerts } from '../alerts/alerts.types.ts';
import type { Db } from '../db/db.types.ts';
import { refreshEsims } from '../esims/refresh.ts';
import type { EsimRow, EsimStore } from '../esims/store.types.ts';
import type { OrderStore } from '../orders/store.types.ts';
import type { PartnerNotification } from '../partner/partner.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import { isUuid } from '../uuid.ts';
import type { Fulfilment } from './fulfilment.types.ts';

export type PartnerWebhookOutcome = 'handled' | 'replay' | 'ignored';

/**
 * One partner notification (DESIGN 6: not signed, so a hint; DESIGN 7: recorded handled only
 * after the work is done). A notifyId already handled changes nothing; one whose handling failed
 * (this throws, the webhook answers 5xx) is not recorded, so the partner's redelivery is handled.
 * 'The profiles are ready' hands the order to the delivery, which queries the partner itself, and
 * does not wait for it (the delivery retries on its own, through the reconcile job). An eSIM's new
 * state is read back from the partner before it is stored, unless the hint says nothing new: an
 * SM-DP+ event (SMDP_EVENT, the partner's most frequent: download, installation, enable, disable,
 * delete) once the eSIM is known installed, an ESIM_STATUS that says what is stored already.
 * CHECK_HEALTH (sent when the webhook is registered) is answered and ignored.
 *
 * Alerts (issue 23): DATA_USAGE is a hint too. Its figures are not stored: the alerts engine reads
 * the eSIM's usage back (batched with the other hints of the moment, one partner call for up to
 * 10 eSIMs), stores it and checks the thresholds; every read-back here is checked the same way.
 */
export async function handlePartnerNotification(
  deps: {
    db: Db;
    store: OrderStore;
    esims: EsimStore;
    partners: Partners;
    fulfilment: Fulfilment;
    alerts: Pick<Alerts, 'usageHint' | 'check'>;
  },
  /** The partner that sent it (a registry id): its ids are looked up among its own orders and eSIMs. */
  from: string,
  notification: PartnerNotification,
): Promise<PartnerWebhookOutcome> {
  const { db, store } = deps;
  if (notification.kind === 'health_check') return 'ignored';
  const { notifyId } = notification;
  if (notifyId) {
    const [seen] = await db.query('SELECT 1 FROM webhook_events WHERE provider = $1 AND event_id = $2', [from, notifyId]);
    if (seen) return 'replay';
  }
  const outcome = await handle(deps, from, notification);
  // Done (or handed to the delivery): only now is a repeat of it a replay. Two deliveries of one
  // notifyId at once may both do the work; it is a hint, and doing it twice changes nothing.
  if (notifyId) await store.onceForEvent(from, notifyId, notification.kind, async () => {});
  return outcome;
}

async function handle(
  deps: { db: Db; esims: EsimStore; partners: Partners; fulfilment: Fulfilment; alerts: Pick<Alerts, 'usageHint' | 'check'> },
  from: string,
  notification: Exclude<PartnerNotification, { kind: 'health_check' }>,
): Promise<PartnerWebhookOutcome> {
  const { db, esims, partners, fulfilment, alerts } = deps;

  /** Our order for the notification: its transactionId is our order id, else the partner's order number. */
  async function orderId(): Promise<string | undefined> {
    if (notification.transactionId && isUuid(notification.transactionId)) return notification.transactionId;
    if (!notification.partnerOrderNo) return undefined;
    const [row] = await db.query<{ order_id: string }>('SELECT order_id FROM order_sourcing WHERE partner_order_no = $1 AND partner = $2', [
      notification.partnerOrderNo,
      from,
    ]);
    return row?.order_id;
  }

  /**
   * The stored eSIM the notification is about: by esimTranNo, the partner's key for it. Older
   * notifications (the docs' earlier VALIDITY_USAGE sample) name it only by ICCID and order: then
   * the eSIM with that ICCID of the notification's order, or with no order named the newest with
   * that ICCID (the partner reuses ICCIDs: an older eSIM may have had it); else the order's eSIM.
   */
  async function esimOf(about: { esimTranNo: string | undefined; iccid: string | undefined }): Promise<EsimRow | undefined> {
    if (about.esimTranNo) {
      return esims.byKey({ partner: from, esim_tran_no: about.esimTranNo });
    }
    const id = await orderId();
    if (about.iccid) {
      const rows = await db.query<{ esim_tran_no: string; order_id: string }>(
        'SELECT esim_tran_no, order_id FROM esims WHERE iccid = $1 AND partner = $2 ORDER BY created_at DESC',
        [about.iccid, from],
      );
      const row = id ? rows.find((r) => r.order_id === id) : rows[0];
      return row && esims.byKey({ partner: from, esim_tran_no: row.esim_tran_no });
    }
    return id ? esims.ofOrder(db, id) : undefined;
  }

  switch (notification.kind) {
    case 'order_ready': {
      const id = await orderId();
      if (!id) return 'ignored';
      // Not awaited: the partner is answered at once, whatever the delivery meets (run never rejects).
      void fulfilment.run(id);
      return 'handled';
    }
    case 'data_usage': {
      const esim = await esimOf(notification);
      if (!esim) return 'ignored';
      alerts.usageHint(esim);
      return 'handled';
    }
    case 'smdp_event':
    case 'esim_status':
    case 'validity': {
      const known = await esimOf(notification);
      // A hint that tells nothing new asks the partner nothing. An SM-DP+ event tells the install
      // step (downloaded: no longer refundable; then installed, turned on, deleted): one that names
      // the step we have stored (the partner repeats them) changes nothing. ESIM_STATUS is read back
      // unless its state and step are what we have already.
      const sameStep = notification.kind !== 'validity' && (notification.installStep ?? known?.install_step) === known?.install_step;
      const nothingNew =
        notification.kind === 'smdp_event'
          ? known?.installed && sameStep
          : notification.kind === 'esim_status' &&
            notification.status === known?.status &&
            notification.installed === known?.installed &&
            sameStep;
      if (known && nothingNew) return 'ignored';
      if (known) {
        // esim/query alone (at the budget's rank for reading one eSIM, below deliveries) says the
        // state, the step and the data used; the usage call is left to GET /esims' refresh.
        await refreshEsims(partners, esims, [known], { usage: notification.kind === 'validity', alerts });
        return 'handled';
      }
      // Not delivered yet: the notification may be the first sign the profile exists.
      const id = await orderId();
      if (!id) return 'ignored';
      void fulfilment.run(id);
      return 'handled';
    }
  }
}

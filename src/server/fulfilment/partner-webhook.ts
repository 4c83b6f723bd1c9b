import type { Db } from '../db/db.ts';
import { refreshEsims } from '../esims/refresh.ts';
import type { EsimStore } from '../esims/store.ts';
import type { OrderStore } from '../orders/store.ts';
import type { EsimPartner, PartnerNotification } from '../partner/partner.ts';
import { isUuid } from '../uuid.ts';
import type { Fulfilment } from './fulfilment.ts';

export type PartnerWebhookOutcome = 'handled' | 'replay' | 'ignored';

/**
 * One partner notification (DESIGN 6: not signed, so a hint; DESIGN 7: recorded handled only
 * after the work is done). A notifyId already handled changes nothing; one whose handling failed
 * (this throws, the webhook answers 5xx) is not recorded, so the partner's redelivery is handled.
 * 'The profiles are ready' hands the order to the delivery, which queries the partner itself, and
 * does not wait for it (the delivery retries on its own, through the reconcile job). An eSIM's new
 * state is read back from the partner before it is stored. Data use is stored as notified: it
 * changes no money and no delivery.
 */
export async function handlePartnerNotification(
  deps: { db: Db; store: OrderStore; esims: EsimStore; partner: EsimPartner; fulfilment: Fulfilment },
  notification: PartnerNotification,
): Promise<PartnerWebhookOutcome> {
  const { db, store } = deps;
  if (notification.kind === 'health_check') return 'ignored';
  const { notifyId } = notification;
  if (notifyId) {
    const [seen] = await db.query('SELECT 1 FROM webhook_events WHERE provider = $1 AND event_id = $2', [PROVIDER, notifyId]);
    if (seen) return 'replay';
  }
  const outcome = await handle(deps, notification);
  // Done (or handed to the delivery): only now is a repeat of it a replay. Two deliveries of one
  // notifyId at once may both do the work; it is a hint, and doing it twice changes nothing.
  if (notifyId) await store.onceForEvent(PROVIDER, notifyId, notification.kind, async () => {});
  return outcome;
}

const PROVIDER = 'esim-access';

async function handle(
  deps: { db: Db; esims: EsimStore; partner: EsimPartner; fulfilment: Fulfilment },
  notification: Exclude<PartnerNotification, { kind: 'health_check' }>,
): Promise<PartnerWebhookOutcome> {
  const { db, esims, partner, fulfilment } = deps;

  /** Our order for the notification: its transactionId is our order id, else the partner's order number. */
  async function orderId(): Promise<string | undefined> {
    if (notification.transactionId && isUuid(notification.transactionId)) return notification.transactionId;
    if (!notification.partnerOrderNo) return undefined;
    const [row] = await db.query<{ id: string }>('SELECT id FROM orders WHERE partner_order_no = $1', [notification.partnerOrderNo]);
    return row?.id;
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
      if (!notification.esimTranNo) return 'ignored';
      await esims.recordUsage({ esimTranNo: notification.esimTranNo, usedBytes: notification.usedBytes, totalBytes: notification.totalBytes, measuredAt: notification.measuredAt });
      return 'handled';
    }
    case 'esim_status':
    case 'validity': {
      const known = notification.esimTranNo ? await esims.byTranNo(notification.esimTranNo) : undefined;
      if (known) {
        await refreshEsims(partner, esims, [known.esim_tran_no]);
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

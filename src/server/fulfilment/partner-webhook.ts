import type { Db } from '../db/db.ts';
import { refreshEsims } from '../esims/refresh.ts';
import type { EsimStore } from '../esims/store.ts';
import type { OrderStore } from '../orders/store.ts';
import type { EsimPartner, PartnerNotification } from '../partner/partner.ts';
import { isUuid } from '../uuid.ts';
import type { Fulfilment } from './fulfilment.ts';

export type PartnerWebhookOutcome = 'handled' | 'replay' | 'ignored';

/**
 * One partner notification (DESIGN 6: not signed, so a hint): a repeat (same notifyId) changes
 * nothing; 'the profiles are ready' runs the order's delivery, which queries the partner itself;
 * an eSIM's new state is read back from the partner before it is stored. Data use is stored as
 * notified: it changes no money and no delivery.
 */
export async function handlePartnerNotification(
  deps: { db: Db; store: OrderStore; esims: EsimStore; partner: EsimPartner; fulfilment: Fulfilment },
  notification: PartnerNotification,
): Promise<PartnerWebhookOutcome> {
  const { db, store, esims, partner, fulfilment } = deps;
  if (notification.kind === 'health_check') return 'ignored';
  if (notification.notifyId) {
    const once = await store.onceForEvent('esim-access', notification.notifyId, notification.kind, async () => {});
    if (once === 'replay') return 'replay';
  }

  /** Our order for the notification: its transactionId is our order id, else the partner's order number. */
  async function orderId(): Promise<string | undefined> {
    if (notification.kind === 'health_check') return undefined;
    if (notification.transactionId && isUuid(notification.transactionId)) return notification.transactionId;
    if (!notification.partnerOrderNo) return undefined;
    const [row] = await db.query<{ id: string }>('SELECT id FROM orders WHERE partner_order_no = $1', [notification.partnerOrderNo]);
    return row?.id;
  }

  switch (notification.kind) {
    case 'order_ready': {
      const id = await orderId();
      if (!id) return 'ignored';
      await fulfilment.run(id);
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
      await fulfilment.run(id);
      return 'handled';
    }
  }
}

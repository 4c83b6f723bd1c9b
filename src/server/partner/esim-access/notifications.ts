import { z } from 'zod';
import type { PartnerNotification } from '../partner.types.ts';
import { esimState, installStep as installStepOf, partnerTime } from './schemas.ts';

const Notification = z.looseObject({
  notifyType: z.string(),
  notifyId: z.string().nullish(),
  content: z.looseObject({}).default({}),
});
const text = z
  .preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1))
  .optional()
  .catch(undefined);
const count = z.coerce.number().int().nonnegative().catch(0);
const NotificationContent = z.looseObject({
  orderNo: text,
  transactionId: text,
  esimTranNo: text,
  iccid: text,
  orderStatus: text,
  esimStatus: text,
  smdpStatus: text,
  totalVolume: count,
  orderUsage: count,
  lastUpdateTime: text,
  expiredTime: text,
  remain: z.coerce.number().optional().catch(undefined),
});

/**
 * The partner's webhook body (`{ notifyType, notifyId?, eventGenerateTime?, content }`,
 * docs.esimaccess.com, webhooks) in our terms; undefined for anything else, never a throw.
 * Not signed by the partner: a hint to query it, never a fact to deliver or refund on.
 */
export function parsePartnerNotification(body: unknown): PartnerNotification | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const parsed = Notification.safeParse(value);
  if (!parsed.success) return undefined;
  const { notifyType } = parsed.data;
  const notifyId = parsed.data.notifyId || undefined;
  const content = NotificationContent.safeParse(parsed.data.content);
  if (!content.success) return undefined;
  const c = content.data;
  const about = { partnerOrderNo: c.orderNo, transactionId: c.transactionId, esimTranNo: c.esimTranNo, iccid: c.iccid };
  switch (notifyType) {
    case 'CHECK_HEALTH':
      return { kind: 'health_check', notifyId };
    case 'ORDER_STATUS':
      // GOT_RESOURCE is the only order status the partner documents sending.
      if (c.orderStatus !== 'GOT_RESOURCE' || !c.orderNo) return undefined;
      return { kind: 'order_ready', notifyId, partnerOrderNo: c.orderNo, transactionId: c.transactionId };
    // Both say where the eSIM is now; SMDP_EVENT (docs: one per SM-DP+ step, many per eSIM, with the
    // phone's eid, which we do not keep) is told apart so the shop can skip the ones that tell it nothing.
    case 'ESIM_STATUS':
    case 'SMDP_EVENT': {
      const state = c.esimStatus ? esimState(c.esimStatus, c.smdpStatus) : undefined;
      return {
        kind: notifyType === 'SMDP_EVENT' ? 'smdp_event' : 'esim_status',
        notifyId,
        ...about,
        status: state?.status,
        installed: state?.installed ?? (!!c.smdpStatus && c.smdpStatus !== 'RELEASED'),
        // An SMDP_EVENT may come without esimStatus: its smdpStatus alone still names the step.
        installStep: (c.esimStatus ? state?.installStep : c.smdpStatus && installStepOf('GOT_RESOURCE', c.smdpStatus)) || undefined,
      };
    }
    case 'DATA_USAGE':
      return {
        kind: 'data_usage',
        notifyId,
        ...about,
        usedBytes: c.orderUsage,
        totalBytes: c.totalVolume,
        measuredAt: partnerTime(c.lastUpdateTime),
      };
    // The older documented sample has no esimTranNo (and no notifyId): the eSIM is then known by
    // its ICCID and its order only, which the caller must look up.
    case 'VALIDITY_USAGE':
      return { kind: 'validity', notifyId, ...about, expiresAt: partnerTime(c.expiredTime), daysLeft: c.remain };
    default:
      return undefined;
  }
}

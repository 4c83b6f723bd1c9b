import QRCode from 'qrcode';
import { REFUND_WINDOW_DAYS } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { EsimStatus, EsimView, InstallCodes, TravellerEsim } from '../../contract/shop-api.ts';
import { iphoneInstallUrl } from '../mail/order-email.ts';
import { orderNumber } from '../orders/store.ts';
import type { OrderLinks } from '../orders/order-links.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { EsimOrder, EsimRow } from './store.types.ts';

const DAY_MS = 86_400_000;

/**
 * What the owner sees of an eSIM: the order's state while it is prepared or refunded, then the
 * partner's. 'refunded' only once Stripe says the refund succeeded: a pending or failed refund keeps
 * the order in fulfilment_failed or refund_requested (fulfilment.ts, refund()), and a refunded order
 * whose refund is not (or no longer) succeeded still shows 'refunding'.
 */
export function esimStatus(order: OrderRow & Pick<OrderLinks, 'replaced_by'>, esim: EsimRow | undefined, now: Date): EsimStatus {
  switch (order.state) {
    case 'fulfilment_failed':
    case 'refund_requested':
      return 'refunding';
    case 'refunded':
      // Refunded only once every refund of it succeeded; one that fails later reopens it (refund_requested).
      return 'refunded';
    case 'delivered':
      break;
    default:
      return 'preparing';
  }
  if (!esim) return 'preparing';
  // Replaced at our cost (esims/replacement.ts): the newer eSIM is the one to use.
  if (order.replaced_by) return 'replaced';
  if (esim.status === 'cancelled') return 'refunded';
  // Paused by the provider (the back office's suspend): neither in use nor ended.
  if (esim.status === 'suspended') return 'suspended';
  if (esim.status === 'expired' || (esim.expires_at && esim.expires_at < now)) return 'expired';
  if (esim.status === 'used_up') return 'used_up';
  return esim.status === 'ready' && !esim.installed ? 'ready' : 'active';
}

/** The QR code as SVG markup (the qrcode package): the LPA string, error correction M as most eSIM QR codes use. */
const qrSvg = (lpa: string) => QRCode.toString(lpa, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });

export async function installCodes(esim: EsimRow): Promise<InstallCodes> {
  return {
    lpa: esim.activation_code,
    smdpAddress: esim.smdp_address,
    activationCode: esim.matching_id,
    qrSvg: await qrSvg(esim.activation_code),
    iphoneUrl: iphoneInstallUrl(esim.activation_code),
    apn: esim.apn,
  };
}

/**
 * Deleted from the phone before it carried any data (issue 32 item 3): no phone can take it again
 * (the SM-DP+ hands a profile out once), so it is refunded or replaced at our cost, although the
 * partner, which cancels only what was never downloaded, gives us nothing back for it.
 */
export const deletedUnused = (esim: Pick<EsimRow, 'install_step' | 'used_bytes'>) =>
  esim.install_step === 'deleted' && esim.used_bytes === 0;

/** Within the refund window (FAQ: 30 days) of its purchase. */
const withinRefundWindow = (order: OrderRow, now: Date) => now.getTime() - order.created_at.getTime() < REFUND_WINDOW_DAYS * DAY_MS;

/**
 * Never installed, or deleted before it carried any data, and bought within the refund window (FAQ:
 * 30 days); an eSIM installed and kept is not refundable (terms). A replacement at our cost is
 * neither refunded nor replaced by its buyer (issue 46: nothing was paid for it, and its own
 * window would restart the original's): its purchase's outcome was decided, and support can help.
 */
export const isRefundable = (status: EsimStatus, order: OrderRow & Pick<OrderLinks, 'replaces'>, esim: EsimRow | undefined, now: Date) =>
  !!esim &&
  !order.replaces &&
  withinRefundWindow(order, now) &&
  ((status === 'ready' && !esim.installed) || (status === 'active' && deletedUnused(esim)));

/**
 * How the eSIM can be replaced at our cost (issue 32 item 3), within the refund window: never
 * downloaded (the partner cancels it first), or deleted before it carried any data; otherwise undefined.
 */
export function replacementCase(status: EsimStatus, order: OrderRow & Pick<OrderLinks, 'replaces'>, esim: EsimRow | undefined, now: Date) {
  if (!esim || order.kind !== 'esim' || order.replaces || !withinRefundWindow(order, now)) return undefined;
  if (status === 'ready' && !esim.installed) return 'never_downloaded' as const;
  if (status === 'active' && deletedUnused(esim)) return 'deleted_unused' as const;
  return undefined;
}

/** A top-up needs an eSIM on a device that is still valid. */
export const canTopUp = (status: EsimStatus) => status === 'active' || status === 'used_up';

/**
 * Whether the eSIM's plan can be topped up at all: the partner's word for the package when it was
 * sold (the catalogue's topUp, kept on the order). Orders from before it was kept do not say: the
 * partner's top-up list for the eSIM then decides.
 */
export const topUpSupported = (order: OrderRow) => order.plan.topUp !== false;

/** Where the eSIM is on the phone, only while it is the owner's to use: a refunded one has no step. */
function installStepOf(status: EsimStatus, esim: EsimRow | undefined): Pick<EsimView, 'installStep' | 'installStepAt'> {
  if (!esim || status === 'refunded' || status === 'refunding') return { installStep: null, installStepAt: null };
  return { installStep: esim.install_step, installStepAt: esim.install_step_at?.toISOString() ?? null };
}

/** The eSIM's state and install step alone (GET /esims/steps). */
export function esimStep(order: OrderRow & Pick<OrderLinks, 'replaced_by'>, esim: EsimRow | undefined, now = new Date()) {
  const status = esimStatus(order, esim, now);
  return { status, ...installStepOf(status, esim) };
}

export async function esimView(
  order: EsimOrder,
  esim: EsimRow | undefined,
  destination: EsimView['destination'],
  now = new Date(),
): Promise<EsimView> {
  const status = esimStatus(order, esim, now);
  const showCodes = esim && inUse(status);
  return {
    id: order.id,
    orderNumber: orderNumber(order),
    status,
    plan: order.plan,
    destination,
    purchasedAt: order.created_at.toISOString(),
    iccid: esim?.iccid ?? null,
    usage: esim ? { usedBytes: esim.used_bytes, totalBytes: esim.total_bytes } : null,
    expiresAt: esim?.expires_at?.toISOString() ?? null,
    install: showCodes ? await installCodes(esim) : null,
    refundable: isRefundable(status, order, esim, now),
    replaceable: !!replacementCase(status, order, esim, now),
    canTopUp: topUpSupported(order) && canTopUp(status),
    ...installStepOf(status, esim),
    topUpSupported: topUpSupported(order),
    traveller: order.traveller_name ? { name: order.traveller_name, email: order.traveller_email } : null,
  };
}

/** Delivered and not ended: the codes are shown, and a traveller's link works. */
export const inUse = (status: EsimStatus) => status === 'ready' || status === 'active' || status === 'used_up';

/**
 * What a traveller's link shows (issue 33): their eSIM only, while it is in use or paused (then
 * without its codes, as My eSIMs shows it, so the traveller learns why it has no data); undefined
 * once it ended (expired, refunded, replaced), which the link then answers like an unknown one.
 */
export async function travellerEsimView(
  order: EsimOrder,
  esim: EsimRow | undefined,
  destination: EsimView['destination'],
  now = new Date(),
): Promise<TravellerEsim | undefined> {
  const status = esimStatus(order, esim, now);
  if (!esim || !(inUse(status) || status === 'suspended') || !order.traveller_name) return undefined;
  return {
    id: order.id,
    canTopUp: topUpSupported(order) && canTopUp(status),
    status,
    plan: order.plan,
    destination,
    iccid: esim.iccid,
    usage: { usedBytes: esim.used_bytes, totalBytes: esim.total_bytes },
    expiresAt: esim.expires_at?.toISOString() ?? null,
    install: inUse(status) ? await installCodes(esim) : null,
    ...installStepOf(status, esim),
    travellerName: order.traveller_name,
  };
}

export type DestinationOf = (code: string, lang: Locale) => EsimView['destination'];

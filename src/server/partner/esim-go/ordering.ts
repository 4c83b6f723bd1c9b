import { PartnerError } from '../partner.ts';
import type { EsimOrder, EsimProfile } from '../partner.types.ts';
import type { CallOptions, EsimGoCall } from './client.ts';
import { PARTNER } from './config.ts';
import { installable, justBought, type EsimReader } from './esim-reads.ts';
import { mapEsimGoBundle } from './packages.ts';
import { OrderAnswer, OrderListAnswer, ValidateAnswer, type EsimGoOrder } from './schemas.ts';

/**
 * Ordering an eSIM at eSIM Go: validate (refusals and the price, nothing charged), then the
 * transaction, sent once (never repeated by the client: a repeat buys again). The transaction's
 * answer names each eSIM with its install details (OrderResponse.order[].esims[]: InstallDetails,
 * iccid, matchingId, smdpAddress, in eSIM Go's OpenAPI, api-evangelist/esimgo
 * openapi/esimgo-orders-api-openapi.yml), so a delivery is these two requests: the profiles are
 * answered with the order. An answer without them leaves them to the install details
 * (GET /esims/assignments, esim-reads.ts), issue 48's third request.
 *
 * eSIM Go's orders carry no reference of ours (Create orders: type, assign, order[] of
 * type/quantity/item/iccids/allowReassign only), so an order whose answer was lost cannot be
 * attributed: findOrder answers none (after the shop's quiet wait, PARTNER_WRITE_GONE_AFTER_MS) and
 * the shop buys again, or fails over. The eSIM that lost answer bought is an orphan, delivered to
 * nobody: the orphan sweep (orphans.ts, reconcile/partner-orphans.ts) finds the eSIM Go orders no
 * shop order holds (order_sourcing.partner_order_no) and revokes their unstarted bundles with
 * refundToBalance=true (Revoke applied Bundle: within the refund period, typically 60 days, once
 * refunds are enabled for the account).
 *
 * The eSIM's label (its customerRef, our transactionId: esim-key.ts) is written once the order is
 * the shop's, after delivery (label.ts): a label written between the transaction and the shop
 * recording its answer would cost a request on every delivery and shorten no orphan's window.
 */

/** Orders a page of List orders (its `limit`), and pages at most. */
const ORDERS_PAGE = 100;
const ORDERS_MAX_PAGES = 20;

export async function orderEsim(
  call: EsimGoCall,
  reader: EsimReader,
  { transactionId, partnerCode, priceUsdE4 }: EsimOrder,
): Promise<{ partnerOrderNo: string; profiles?: EsimProfile[] }> {
  const item = { type: 'bundle', quantity: 1, item: partnerCode, allowReassign: false };
  const order = (type: 'validate' | 'transaction') =>
    ({ method: 'POST', call: 'POST /orders', path: '/orders', body: { type, assign: true, order: [item] } }) as const;
  // 'A validate request runs all the same checks as a real order but does not charge your balance' (quick_start).
  const validated = await call(order('validate'), (json) => ValidateAnswer.parse(json), { repeatable: true });
  if (validated.valid === false) refuse('not_valid', `eSIM Go validated the order of ${partnerCode} as not valid`);
  if (validated.currency !== 'USD') refuse('currency', `prices are in ${validated.currency}, not USD`);
  if (priceUsdE4 !== undefined && Math.round(validated.total * 10_000) !== priceUsdE4) {
    refuse(
      'price_changed',
      `${partnerCode} costs USD ${validated.total} now, not the ${priceUsdE4 / 10_000} it was sold at`,
      'price_changed',
    );
  }
  // The bundle's facts, for the profiles (read once per bundle, before anything is bought).
  const bundle = mapEsimGoBundle(await reader.bundleNamed(partnerCode, { priority: 'delivery' }));
  const placed = await call(order('transaction'), (json) => OrderAnswer.parse(json), { repeatable: false });
  const esims = placed.order.flatMap((line) => line.esims ?? []);
  return {
    partnerOrderNo: placed.orderReference,
    ...(installable(esims) && { profiles: esims.map((esim) => justBought(esim, transactionId, bundle)) }),
  };
}

/** A refusal decided on eSIM Go's answer to a validate: nothing was bought (PartnerError.refused). */
function refuse(code: string, reason: string, kind?: 'price_changed'): never {
  throw new PartnerError({ partner: PARTNER, call: 'POST /orders', code, kind, retryable: false, attempts: 1, reason });
}

/** The orders placed between `from` and `to`, with their eSIMs' ICCIDs (at most ORDERS_MAX_PAGES pages). */
export async function ordersBetween(
  call: EsimGoCall,
  { from, to }: { from: Date; to: Date },
  options: CallOptions = {},
): Promise<EsimGoOrder[]> {
  // List orders: createdAt=gte:…&createdAt=lte:… ('Specifies the date range for filtering orders'); includeIccids for their eSIMs.
  const createdAt = [`gte:${from.toISOString()}`, `lte:${to.toISOString()}`];
  const all: EsimGoOrder[] = [];
  for (let page = 1; page <= ORDERS_MAX_PAGES; page++) {
    const query = { includeIccids: 'true', page: String(page), limit: String(ORDERS_PAGE), createdAt };
    const orders = await call(
      { method: 'GET', call: 'GET /orders', path: '/orders', query },
      (json) => OrderListAnswer.parse(json),
      options,
    );
    all.push(...orders);
    if (orders.length < ORDERS_PAGE) break;
  }
  return all;
}

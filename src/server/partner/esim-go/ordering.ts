import { PartnerError } from '../partner.ts';
import type { EsimOrder } from '../partner.types.ts';
import type { CallOptions, EsimGoCall } from './client.ts';
import { PARTNER } from './config.ts';
import {
  AssignmentsAnswer,
  EsimDetailsAnswer,
  EsimListAnswer,
  iccidsOf,
  OrderAnswer,
  OrderListAnswer,
  ValidateAnswer,
  type EsimGoOrder,
} from './schemas.ts';

/**
 * Ordering an eSIM at eSIM Go, idempotent by our transactionId though eSIM Go's orders carry no
 * reference of ours (Create orders: type, assign, order[] of type/quantity/item/iccids/allowReassign
 * only) and a repeated transaction buys again.
 *
 * The tag: right after the transaction the new eSIM's customerRef is set to the transactionId
 * (Update eSIM Details: 'the association of a unique identifier with an eSIM ... such as customer
 * order IDs'). An eSIM Go eSIM is the shop's only once tagged, and only a tagged one is ever
 * attributed to an order: orderEsim answers an order reference only after its tag is written (or
 * read back written), and findOrder attributes only the eSIM tagged with its transactionId.
 *
 * orderEsim(order): looks first (List eSIMs filtered by customerRef), unless it is the order's
 * first try (EsimOrder.firstTry): an eSIM tagged with this transactionId means an earlier try bought
 * it, and its order is answered (the order that holds its ICCID, List orders around its
 * assignedDate). Else validates (refusals and the price, nothing
 * charged), sends the transaction once (never repeated by the client: a repeat buys again), tags it.
 *
 * findOrder(transactionId, placedAround): the same read: the order of the eSIM tagged with this
 * transactionId, else undefined. An eSIM bought by a transaction whose answer was lost is untagged,
 * and an untagged eSIM is never attributed: the tag is written in a separate call after the order
 * and is last-writer-wins, so two orders whose answers were both lost around the same time, or an
 * order whose tag is still in flight, cannot be told apart by anything eSIM Go keeps (not provably
 * the only one, ever). The shop then buys again; the untagged eSIM is an orphan, delivered to nobody.
 * Reconcile (an operator, or a job): an eSIM Go order whose reference no shop order holds
 * (order_sourcing.partner_order_no) is an orphan; its unstarted bundle is revoked with
 * refundToBalance=true (Revoke applied Bundle: within the refund period, typically 60 days, once
 * refunds are enabled for the account) and the eSIM leaves the account (the returns process).
 */

/** How far around a time an eSIM's order is looked for: eSIM Go's clock and ours differ. */
const ORDER_WINDOW_MS = 10 * 60_000;
/** Orders a page of List orders (its `limit`), and pages at most. */
const ORDERS_PAGE = 100;
const ORDERS_MAX_PAGES = 20;

export async function orderEsim(
  call: EsimGoCall,
  { transactionId, partnerCode, priceUsdE4, firstTry }: EsimOrder,
): Promise<{ partnerOrderNo: string }> {
  const earlier = firstTry ? undefined : await taggedOrder(call, transactionId, undefined);
  if (earlier) return { partnerOrderNo: earlier };
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
  const placed = await call(order('transaction'), (json) => OrderAnswer.parse(json), { repeatable: false });
  try {
    const [iccid] = iccidsOf(placed).length > 0 ? iccidsOf(placed) : await iccidsOfReference(call, placed.orderReference);
    if (!iccid) throw new Error(`order ${placed.orderReference} names no eSIM yet: it cannot be tagged with ${transactionId}`);
    await tag(call, iccid, transactionId);
  } catch (error) {
    // Bought: whatever fails after the transaction leaves the order in doubt (never refused, never
    // 'not sent'), settled by reading the tag back or, untagged, released as an orphan.
    throw new PartnerError(
      {
        partner: PARTNER,
        call: 'POST /orders',
        retryable: true,
        attempts: 1,
        reason: error instanceof Error ? error.message : String(error),
      },
      { cause: error },
    );
  }
  return { partnerOrderNo: placed.orderReference };
}

export async function findOrder(call: EsimGoCall, transactionId: string, placedAround: Date): Promise<string | undefined> {
  return taggedOrder(call, transactionId, placedAround);
}

/** A refusal decided on eSIM Go's answer to a validate: nothing was bought (PartnerError.refused). */
function refuse(code: string, reason: string, kind?: 'price_changed'): never {
  throw new PartnerError({ partner: PARTNER, call: 'POST /orders', code, kind, retryable: false, attempts: 1, reason });
}

/**
 * The order of the eSIM tagged with this transactionId, if there is one. List eSIMs' filter is a
 * 'like' search by default (release notes 2.2.0), so the answer is compared exactly here; an answer
 * listing eSIMs whose customerRef does not contain the value was not filtered, and says nothing.
 */
async function taggedOrder(call: EsimGoCall, transactionId: string, placedAround: Date | undefined): Promise<string | undefined> {
  const request = {
    method: 'GET',
    call: 'GET /esims',
    path: '/esims',
    query: { filterBy: 'customerRef', filter: transactionId, perPage: '100', direction: 'asc', orderBy: 'iccid' },
  } as const;
  const listed = await call(request, (json) => EsimListAnswer.parse(json).esims);
  if (listed.some((e) => !(e.customerRef ?? '').includes(transactionId))) {
    throw new PartnerError({
      partner: PARTNER,
      call: request.call,
      retryable: true,
      attempts: 1,
      reason: 'the eSIMs were not filtered by customerRef',
    });
  }
  // Two tagged with one transactionId: a tag whose answer was lost landed after a second purchase; the first is the order's.
  const tagged = listed
    .filter((e) => e.customerRef === transactionId)
    .sort((a, b) => Date.parse(a.assignedDate ?? '') - Date.parse(b.assignedDate ?? ''))[0];
  if (!tagged) return undefined;
  const assignedAt = tagged.assignedDate ? new Date(tagged.assignedDate) : undefined;
  const at = assignedAt && !Number.isNaN(assignedAt.getTime()) ? assignedAt : (placedAround ?? new Date());
  const reference = await orderOfIccid(call, tagged.iccid, at);
  if (reference) return reference;
  // Bought for this order, for sure: never answer 'none' (the shop would buy again); ask again later.
  throw new PartnerError({
    partner: PARTNER,
    call: 'GET /orders',
    retryable: true,
    attempts: 1,
    reason: `eSIM ${tagged.iccid} is tagged ${transactionId} but no order around ${at.toISOString()} holds it`,
  });
}

/** The earliest order around `at` that holds this ICCID: the one that bought it (a later one tops it up). */
async function orderOfIccid(call: EsimGoCall, iccid: string, at: Date): Promise<string | undefined> {
  const window = { from: new Date(at.getTime() - ORDER_WINDOW_MS), to: new Date(at.getTime() + ORDER_WINDOW_MS) };
  const holding = (await ordersBetween(call, window))
    .filter((order) => iccidsOf(order).includes(iccid))
    .map((order) => ({ reference: order.orderReference, created: Date.parse(order.createdDate ?? '') || 0 }));
  return holding.sort((a, b) => a.created - b.created)[0]?.reference;
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

/** The ICCIDs of an order's eSIMs from its install details (when its answer named none). */
async function iccidsOfReference(call: EsimGoCall, reference: string): Promise<string[]> {
  const request = { method: 'GET', call: 'GET /esims/assignments', path: '/esims/assignments', query: { reference } } as const;
  return call(request, (json) => AssignmentsAnswer.parse(json).map((e) => e.iccid));
}

/**
 * Tags the eSIM with the transactionId (Update eSIM Details: PUT /esims with iccid and customerRef,
 * given as the documented body and query both). Repeating it is harmless; a failure that may have
 * been applied is settled by reading the eSIM's customerRef back.
 */
async function tag(call: EsimGoCall, iccid: string, transactionId: string): Promise<void> {
  const request = {
    method: 'PUT',
    call: 'PUT /esims',
    path: '/esims',
    query: { iccid, customerRef: transactionId },
    body: { iccid, customerRef: transactionId },
  } as const;
  try {
    await call(request, () => undefined, { repeatable: true });
  } catch (error) {
    if (error instanceof PartnerError && error.refused) throw error;
    const read = { method: 'GET', call: 'GET /esims/{iccid}', path: `/esims/${encodeURIComponent(iccid)}` } as const;
    const now = await call(read, (json) => EsimDetailsAnswer.parse(json), { priority: 'delivery' }).catch(() => undefined);
    if (now?.customerRef !== transactionId) throw error;
  }
}

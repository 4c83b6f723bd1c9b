import type Stripe from 'stripe';
import type { Db } from '../../db/db.types.ts';
import type { EsimStore } from '../../esims/store.types.ts';
import { LINK_COLUMNS, type OrderLinks } from '../../orders/order-links.ts';
import type { OrderRow, OrderSourcing, OrderStore } from '../../orders/store.types.ts';
import type { RefundReason } from '../../refunds/refund-command.types.ts';
import { REFUND_REASON_COLUMN } from '../../refunds/refund-reasons.ts';
import { listedProfile, PartnerError } from '../../partner/partner.ts';
import type { EsimProfile } from '../../partner/partner.types.ts';
import type { Partners } from '../../partner/registry.types.ts';
import { SOURCING_COLUMNS, SOURCING_JOIN } from '../../orders/sourcing.ts';
import type { createFulfilmentEmails } from '../emails.ts';
import { LeaseLost } from '../lease.ts';
import type { Lease } from '../lease.types.ts';
import type { FulfilmentOptions } from '../fulfilment.types.ts';

/**
 * A step of a delivery workflow (issue 47 item 2), the way Medusa writes one (createStep with an
 * invoke and a compensation, core-flows/cart/workflows/complete-cart.ts): `run` does its part of
 * the order's work under the worker's claim (every write fenced, lease.ts); `compensate` undoes it
 * when the workflow cannot finish (the partner's order is cancelled, the charge refunded). Each
 * step reads what is stored before it acts, so a run that stopped anywhere (a crash, a lost claim)
 * is taken up by the next; a write to the partner whose answer was lost is settled by reading the
 * partner's state (DESIGN 7), never by guessing.
 */
export interface Step<Result = void> {
  readonly name: string;
  run(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<Result>;
  compensate?(ctx: StepContext, lease: Lease, order: OrderInWork): Promise<void>;
}

/** What the steps share: the stores, the outside services and the fulfilment's settings. */
export interface StepContext {
  db: Db;
  /** The partners: each call goes to the order's or the eSIM's own. */
  partners: Partners;
  nextPartner?: FulfilmentOptions['nextPartner'];
  stripe: Stripe;
  orders: OrderStore;
  esims: EsimStore;
  emails: ReturnType<typeof createFulfilmentEmails>;
  /** The waits between failed tries (their number: a delivery's tries). */
  delays: readonly number[];
  allocationLimitMs: number;
  refundPollMs: number;
  /** A new eSIM was delivered and its order e-mail sent. */
  onDelivered?: ((orderId: string) => void) | undefined;
  /** Moves another order as far as it can (an exchange's old eSIM, a replacement's original). */
  run(orderId: string): Promise<void>;
}

/** What a step's try leaves: nothing to do, or a look again soon (the partner is still allocating). */
export type Outcome = { retryInMs: number } | 'done';

/** A failure after which no partner write can have happened unseen: the partner said no in an answer we read. */
export const refused = (error: unknown): error is PartnerError => error instanceof PartnerError && error.refused;

/** The partner's answer to a write is unknown: it may have been applied (DESIGN 7). */
export const ambiguous = (error: unknown) => !refused(error) && !(error instanceof LeaseLost);

/** The eSIM as the partner has it now (after an ambiguous answer, its word settles what happened). */
export const partnerEsim = (ctx: StepContext, esim: { partner: string; esim_tran_no: string }): Promise<EsimProfile> =>
  listedProfile(ctx.partners.of(esim.partner), esim.esim_tran_no);

/**
 * An order as the steps work on it: the sale, its partner (order_sourcing), the orders it exchanges
 * or replaces (order_links: which workflow delivers it) and why it is refunded as a whole, if it
 * is (order_refund_reasons).
 */
export type OrderInWork = OrderRow & OrderSourcing & OrderLinks & { refund_reason: RefundReason | null };

/** The order as stored now. */
export async function fresh(ctx: StepContext, id: string): Promise<OrderInWork> {
  const [beside] = await ctx.db.query<OrderSourcing & OrderLinks & { refund_reason: RefundReason | null }>(
    `SELECT ${SOURCING_COLUMNS}, ${LINK_COLUMNS}, ${REFUND_REASON_COLUMN} FROM (SELECT $1::uuid AS id) o ${SOURCING_JOIN}`,
    [id],
  );
  return { ...(await ctx.orders.byId(ctx.db, id))!, ...beside! };
}

import type Stripe from 'stripe';
import type { Locale } from '../../i18n/locales.ts';
import type { PartnerOffer } from '../../catalogue/schema.ts';
import type { Db } from '../db/db.types.ts';
import type { OrderRow, OrderSourcing } from '../orders/store.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { OrderRunner } from '../esims/services.types.ts';

/** Delivery (fulfilment.ts): every paid order driven to delivered or refunded. */
export interface Fulfilment extends OrderRunner {
  /** The reconcile job's part: runs up to `limit` orders that are due; answers how many. */
  runDue(limit?: number): Promise<number>;
  /** Waits for the runs under way (a server stopping, a test). */
  settled(): Promise<void>;
}

/** What the fulfilment (fulfilment.ts) is built with. */
export interface FulfilmentOptions {
  db: Db;
  partners: Partners;
  /**
   * The next partner for an order its partner refused (issue 48 item 5): another partner's package
   * of the order's plan whose margin holds at what the buyer paid, none of `skip`; none: no failover.
   */
  nextPartner?: (order: OrderRow & OrderSourcing, skip: readonly string[]) => PartnerOffer | undefined;
  stripe: Stripe;
  mailer: Mailer;
  /** The site's address (links in e-mails) and its name. */
  siteUrl: string;
  siteName: string;
  /** The e-mail links' signing key (an automatic top-up's e-mail turns them off in one click, issue 49). */
  linkSecret: string;
  destinationName: (code: string, lang: Locale) => string;
  /**
   * The waits between failed tries; their number is how many tries a delivery gets before the
   * order is refunded. Refunds and e-mails keep trying at the last wait.
   */
  retryDelaysMs?: readonly number[];
  /** How soon to ask the partner again while it allocates (its webhook usually comes first). */
  allocationPollMs?: number;
  /** An order still allocating after this long counts its polls as failed tries. */
  allocationLimitMs?: number;
  /** How long a worker's claim on an order lasts unless renewed (it is renewed while the work goes on). */
  leaseMs?: number;
  /** How soon to read a pending refund at Stripe again (its webhook usually comes first). */
  refundPollMs?: number;
  /** A delivery still failing this long after the payment is refunded at once (DELIVERY_PROMISE_MS). */
  deliveryPromiseMs?: number;
  /** A new eSIM was delivered and its order e-mail sent (the alerts' 'eSIM ready', issue 23). */
  onDelivered?: (orderId: string) => void;
}

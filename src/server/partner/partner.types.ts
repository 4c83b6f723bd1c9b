import type { InstallStep } from '../../contract/shop-api.ts';
import type { DataAmount, Package, PlanFacts } from '../../catalogue/schema.ts';
import type { PartnerPriority } from './partner-budget.types.ts';

/**
 * What the shop needs from a wholesale eSIM partner (DESIGN 6), whoever the partner is: its
 * packages for the catalogue, and for delivery ordering an eSIM, learning its profile, cancelling,
 * topping up and reading its data use. Every failure is a `PartnerError`.
 *
 * An eSIM's key is the partner's `esimTranNo`, never its ICCID: partners reuse ICCIDs.
 * The activation code is a credential (whoever has it can install the eSIM): it must never go
 * into an error message or a log line.
 */
export interface EsimPartner extends PartnerCatalogue {
  /**
   * Whether the partner notifies us once an order's eSIM is allocated (eSIM Access's ORDER_STATUS):
   * the delivery then reads the profile when told. Without (eSIM Go assigns at once), it reads it
   * right after ordering.
   */
  readonly notifiesAllocation: boolean;
  /**
   * The requests a delivery takes at the fewest: ordering, then reading the eSIM once ordered (the
   * routing weighs a rush by those still to come: partner/deliveries-in-flight.ts). One each when not said.
   */
  readonly requestsPerDelivery?: { order: number; read: number };
  /**
   * Orders eSIMs of one package. Idempotent by `transactionId` where the partner keeps it (eSIM
   * Access): ordering again with the same id answers the same partner order. Where it does not
   * (eSIM Go), ordering again buys again, so the caller settles an earlier send by reading first
   * (findOrder, then its quiet wait), and an eSIM bought by a send whose answer was lost is an
   * orphan, released by findOrphans. The profiles come with the answer when the partner gives them
   * there (eSIM Go's transaction answers its eSIMs' install details); else learn them from the
   * partner's notification or `queryProfiles`.
   */
  orderEsim(order: EsimOrder): Promise<{ partnerOrderNo: string; profiles?: EsimProfile[] }>;
  /**
   * Called once the shop stored the eSIM as its order's: a partner whose orders carry nothing of
   * ours marks it so (eSIM Go's customerRef, which its key is checked against). Sent at the usage
   * priority, after a rush's deliveries; a later read marks one whose mark was lost. None: nothing to mark.
   */
  labelEsim?(esimTranNo: string): Promise<void>;
  /**
   * The partner's order placed with this transactionId around `placedAround` (within minutes),
   * once its profiles are allocated; undefined if none is listed. How an ambiguous order answer
   * is settled: by reading what the partner has, never by guessing (DESIGN 7).
   */
  findOrder(transactionId: string, placedAround: Date): Promise<string | undefined>;
  /** An order's profiles, or one eSIM's; 'allocating' while the partner is still preparing them. */
  queryProfiles(which: ProfileQuery, options?: PartnerReadOptions): Promise<ProfileAnswer>;
  /**
   * Cancels (and has the partner refund) an eSIM that was never installed. Fails with a
   * non-retryable PartnerError of kind 'not_allowed' once it was installed or already cancelled.
   */
  cancelProfile(esimTranNo: string): Promise<void>;
  /**
   * Pauses the eSIM's data service; it stays on the phone and can be unsuspended. Refused
   * ('not_allowed') when its state forbids it (cancelled, revoked, expired, already suspended).
   * Sent once: after a failure that may have been applied, read the eSIM's state (esims/service-actions.ts).
   */
  suspendProfile(esimTranNo: string): Promise<void>;
  /** Gives a suspended eSIM its data service back. Refused ('not_allowed') unless it is suspended. Sent once. */
  unsuspendProfile(esimTranNo: string): Promise<void>;
  /**
   * Closes the eSIM for good: no data, never again, and the partner refunds nothing (use
   * `cancelProfile` for a never-installed one). Refused ('not_allowed') once cancelled or revoked. Sent once.
   */
  revokeProfile(esimTranNo: string): Promise<void>;
  /**
   * Purchases the partner holds that no order of ours can ever claim, among its orders placed in
   * the window (eSIM Go: bought by a transaction whose answer was lost before its label was
   * written); `known` claims the shop's own (by the partner's order number and the eSIMs' ICCIDs).
   * Each is released with `cancelProfile(esimTranNo)`. Absent: the partner keeps our reference on
   * every order (eSIM Access's transactionId), so a lost answer is always read back to its order.
   */
  findOrphans?(
    window: { from: Date; to: Date },
    known: (order: { partnerOrderNo: string; iccids: string[] }) => Promise<boolean>,
  ): Promise<PartnerOrphan[]>;
  /**
   * The partner's own top-up packages for this eSIM (by its ICCID), each with its own code and
   * wholesale price; none when its package cannot be topped up. What `topUp` may add to it.
   */
  listTopUps(iccid: string, options?: PartnerReadOptions): Promise<PartnerPackage[]>;
  /** Adds one of the eSIM's top-up packages (`listTopUps`) to it; answers the eSIM's new totals. */
  topUp(topUp: EsimTopUp): Promise<TopUpResult>;
  /** The account's prepaid balance, USD × 10,000: what orders and top-ups are paid from. */
  balance(options?: PartnerReadOptions): Promise<number>;
  /** Data use of these eSIMs as the partner last measured it (it lags by minutes to hours). */
  usage(esimTranNos: readonly string[], options?: PartnerReadOptions): Promise<EsimUsage[]>;
}

/** How a read takes its turn in the partner's request budget. */
export interface PartnerReadOptions {
  /**
   * Its priority instead of the one the partner's adapter gives the call: 'operator' for the
   * back office's reads on request, after everything a buyer waits for (partner-budget.ts).
   */
  priority?: PartnerPriority;
  /**
   * A person waits for this answer: once it aborts, a read still waiting for its turn in the budget
   * is not sent and fails at once (kind 'busy'), so a buyer hears "try again" within seconds in a
   * rush, and no turn goes to an answer nobody waits for. A read already sent runs to its end.
   */
  signal?: AbortSignal;
}

/** What the catalogue generator needs: the partner's packages. */
export interface PartnerCatalogue {
  /** Short name for messages and logs ('eSIM Access'). */
  readonly name: string;
  /** The partner's packages with their plan facts (every location when `query` is empty). */
  listPackages(query?: PackageQuery): Promise<CataloguePackage[]>;
}

export interface EsimOrder {
  /** Our order id: the partner keeps it, and a repeat of it is the same order. */
  transactionId: string;
  /** The package to order (`PartnerPackage.partnerCode`). */
  partnerCode: string;
  /**
   * The wholesale price we expect, USD × 10,000: the partner refuses the order if its price
   * differs, so we never pay more than we charged for. Omitted: whatever the partner charges now.
   */
  priceUsdE4?: number;
  /** One eSIM per order: the shop sells them one at a time. */
  count: 1;
}

/** A purchase no order claims (EsimPartner.findOrphans): the partner's order, and the key its eSIM is released by. */
export interface PartnerOrphan {
  partnerOrderNo: string;
  esimTranNo: string;
}

export type ProfileQuery =
  | {
      partnerOrderNo: string;
      /**
       * The delivery's read, right after ordering: what the order was (a partner whose new eSIM
       * is known from it may read less: eSIM Go's install details alone).
       */
      ordered?: { transactionId: string; partnerCode: string };
    }
  | { esimTranNo: string };

export type ProfileAnswer = { status: 'allocating' } | { status: 'ready'; profiles: EsimProfile[] };

/** An eSIM's state in our terms. */
export type EsimStatus =
  /** Allocated, never installed: it can be installed, or cancelled and refunded. */
  | 'ready'
  /** Downloaded to a device, not used yet. */
  | 'installed'
  /** In use on a device. */
  | 'active'
  /** Paused by the partner. */
  | 'suspended'
  | 'used_up'
  | 'expired'
  /** Cancelled (refunded) or revoked. */
  | 'cancelled';

/** One allocated eSIM profile. */
export interface EsimProfile {
  /** The partner's id for this eSIM: the key (ICCIDs are reused). */
  esimTranNo: string;
  /** The transactionId its order was placed with (our order id), when the partner says. */
  transactionId: string | null;
  iccid: string;
  /** The LPA string `LPA:1$<SM-DP+ address>$<matching id>`: a credential, never logged. */
  activationCode: string;
  smdpAddress: string;
  matchingId: string;
  /**
   * The APN the phone should use, when the partner names one (most phones set it from the profile;
   * for My eSIMs' manual install codes). The partner's other profile details (eid, msisdn,
   * qrCodeUrl, shortUrl, pin, puk) are not kept: the shop makes its own QR code and link, and the
   * phone's eid is personal data it has no use for.
   */
  apn: string | null;
  status: EsimStatus;
  /** Whether it was ever downloaded to a device: an installed eSIM is no longer refundable. */
  installed: boolean;
  /** Where it is on the phone now (null when cancelled or not told). */
  installStep: InstallStep | null;
  /** Before installation the last day to install it; after, the end of its validity. */
  expiresAt: Date | null;
  totalBytes: number;
  usedBytes: number;
  validityDays: number;
}

export interface EsimTopUp {
  esimTranNo: string;
  /** One of the eSIM's top-up packages (`listTopUps`): its own code, never a plan's. */
  partnerCode: string;
  /** Our id for this top-up (our order id). */
  transactionId: string;
}

export interface TopUpResult {
  totalBytes: number;
  usedBytes: number;
  validityDays: number;
  expiresAt: Date | null;
}

export interface EsimUsage {
  esimTranNo: string;
  usedBytes: number;
  totalBytes: number;
  /** When the partner last measured it; null if it never did. */
  measuredAt: Date | null;
}

/**
 * A partner's webhook notification in our terms. Partners do not sign them (eSIM Access does
 * not): each one is only a hint to query the partner before delivering or refunding anything.
 * `notifyId` (when the partner sends one) is for the caller to drop repeats.
 */
export type PartnerNotification =
  | { kind: 'health_check'; notifyId: string | undefined }
  /** The order's profiles are allocated: query them. */
  | { kind: 'order_ready'; notifyId: string | undefined; partnerOrderNo: string; transactionId: string | undefined }
  /**
   * An eSIM's state changed (installed, in use, used up, expired, cancelled): 'esim_status'; or a
   * step at the SM-DP+ (download, installation, enable, disable, delete), far more frequent: 'smdp_event'.
   */
  | {
      kind: 'esim_status' | 'smdp_event';
      notifyId: string | undefined;
      partnerOrderNo: string | undefined;
      transactionId: string | undefined;
      esimTranNo: string | undefined;
      iccid: string | undefined;
      status: EsimStatus | undefined;
      installed: boolean;
      installStep: InstallStep | undefined;
    }
  /** Data use crossed one of the partner's thresholds. */
  | {
      kind: 'data_usage';
      notifyId: string | undefined;
      partnerOrderNo: string | undefined;
      transactionId: string | undefined;
      esimTranNo: string | undefined;
      iccid: string | undefined;
      usedBytes: number;
      totalBytes: number;
      measuredAt: Date | null;
    }
  /** The eSIM's validity is about to end (about a day before; esimTranNo missing in older notifications). */
  | {
      kind: 'validity';
      notifyId: string | undefined;
      partnerOrderNo: string | undefined;
      transactionId: string | undefined;
      esimTranNo: string | undefined;
      iccid: string | undefined;
      expiresAt: Date | null;
      daysLeft: number | undefined;
    };

export interface PackageQuery {
  /** A country ('DE') or one of the partner's own location codes ('EU-42'). */
  location?: string;
  /** One package by the partner's code. */
  packageCode?: string;
}

/** A partner's package in our terms. */
export interface PartnerPackage {
  /** The partner's code for the package: what an order names. */
  partnerCode: string;
  /** The partner's readable id ('EU-42_5_30'). */
  slug: string;
  /** The partner's English name ('Europe 5GB 30Days'), for operators; never shown to buyers. */
  name: string;
  /** ISO 3166-1 alpha-2 codes of the countries it works in, sorted. */
  countries: string[];
  dataAmount: DataAmount;
  /** The data volume exactly as the partner counts it. */
  dataBytes: number;
  validity: number;
  validityUnit: Package['validityUnit'];
  /** The wholesale price in US dollars × 10,000 (the partner's unit: 10000 = USD 1.00). */
  wholesaleUsdE4: number;
  /** Whether an eSIM of this package can be topped up later (the partner says so per package). */
  topUp: boolean;
}

/** A package the catalogue sells: with the plan's facts as the partner states them (facts.topUp is `topUp`). */
export interface CataloguePackage extends PartnerPackage {
  facts: PlanFacts;
}

/**
 * What a partner's refusal means for the shop, whoever the partner is:
 * out_of_stock: no profile of that package to allocate now; insufficient_balance: our prepaid
 * account is empty; not_allowed: the eSIM's state forbids it (cancelling an installed eSIM);
 * not_found: no such order, eSIM or package; not_allocated: the profile is still being allocated;
 * price_changed: the partner's wholesale price is no longer the one the order was sold at.
 */
export type PartnerErrorKind =
  | 'out_of_stock'
  | 'insufficient_balance'
  | 'not_allowed'
  | 'not_found'
  | 'not_allocated'
  | 'price_changed'
  /** Not sent: its caller stopped waiting before it had a turn in the request budget (a rush). */
  | 'busy';

import { priceIn } from '../../../src/pricing/price-in.ts';
import type { SellablePlan } from '../../../src/server/orders/plans.ts';
import type {
  AutoTopUpView,
  CreateCartRequest,
  CreateCartResponse,
  CreateOrderRequest,
  EsimView,
  OrderView,
  SavedCardAnswer,
  TopUpPlans,
  Traveller,
} from '../../../src/contract/shop-api.ts';
import { grantRoleOn, signInOn, signUpOn } from '../auth-emulator.ts';
import { esimsOfOrders, type RunPartner } from './partners.ts';
import { between, pick, type Random } from './random.ts';
import { CURRENCIES, type Currency } from '../../../src/config/currencies.ts';

/**
 * The buyers of the fault-injection run: accounts signed up on the Auth emulator, each buying one
 * or two eSIMs through the front (POST /orders, then card 4242 on the Stripe stand-in's hosted
 * page), waiting for the eSIM as the success page does, then keeping it, asking for a refund of
 * the unused eSIM, or installing it (the stand-in's test hook: the traveller's phone) and topping
 * it up; some of those then ask for a refund of the installed eSIM, which must be refused. A few
 * press Buy twice at once, which must give one order. Buyers retry what failed as a person
 * would (a 5xx, a dropped connection, a 429 after its Retry-After), a bounded number of times.
 *
 * Beside them, an operator (an admin of the back office, POST /ops/orders/{id}/refunds) gives
 * back part of some kept eSIMs' price, and for most of them the rest a little later; some clicks
 * are double (the same idempotency key twice at once), and an answer that does not come is asked
 * again with the same key, as the order page's dialog does. The same operator blocks a few buyers
 * at work (on an order opened and not paid, or while a paid one is delivered): the buyer's next
 * order is refused 403 account_blocked, final, and some are unblocked later and buy on.
 *
 * One outcome per purchase (issue 46): some buyers delete their eSIM from the phone before it
 * carried data (the stand-in's hook) and press Replace, half of them pressing Refund at the same
 * moment; others exchange theirs for another destination's (POST /orders with exchangeOf) and,
 * before paying the exchange, press Replace, Refund or both at once on the first eSIM (the
 * review's case), then pay. Whatever they press, a purchase must end kept, refunded, replaced or
 * exchanged, never two: a buyer who saw both a refund and a replacement accepted records it, and
 * the cross-checks read what Stripe gave back and which replacements the partner holds.
 *
 * Automatic top-ups (issue 49): some buyers turn them on, ticked at checkout or in My eSIMs with a
 * card saved on Stripe's page, install the eSIM and use it until 10 % is left, the measure reported
 * again and read by two pages at once, and watch the top-up charged off-session and applied; a card
 * that always asks for authentication (3184) is refused instead, and some of those buyers pay it
 * on-session from the e-mail's link.
 */
export interface BuyerSettings {
  /** The API through the front: http://…/api */
  api: string;
  authHost: string;
  /** The partners, as the traveller's phone meets their eSIMs. */
  partners: readonly RunPartner[];
  plans: readonly SellablePlan[];
  random: Random;
  /** eSIMs to buy in all. */
  orders: number;
  /** Buyers at work at once. */
  concurrency: number;
  /** Shares of delivered eSIMs whose buyer asks for a refund, or installs and tops up. */
  refundShare: number;
  topUpShare: number;
  /** How long a buyer waits for an order to be delivered before moving on (the job finishes it later). */
  deliveryWaitMs: number;
  /** No purchase starts after this time (ms since the epoch): a bounded run. */
  stopStartingAt?: number;
  /** Called as each eSIM order is started (the run's phases follow the progress). */
  onOrderStarted?: (started: number) => void;
  /** The share of kept eSIMs (delivered, neither refunded by the buyer nor topped up) an operator refunds. */
  operatorShare: number;
  /** The operator's choices, a stream of their own (the buyers' choices stay what the seed made them). */
  operatorRandom: Random;
  /** The share of buyers the operator blocks while they buy (at least one), and the blocks' choices, a stream of their own. */
  blockShare: number;
  blockRandom: Random;
  /** The share of kept purchases bought as a cart of one to four eSIMs (issue 33), and the carts' choices, a stream of their own. */
  cartShare: number;
  cartRandom: Random;
  /** Each buyer's currency (issue 34), a stream of its own: every listed currency is bought in. */
  currencyRandom: Random;
  /**
   * The share of purchases (neither topped up nor bought in a cart) whose buyer replaces or
   * exchanges the eSIM (issue 46), and their choices, a stream of their own.
   */
  outcomeShare: number;
  outcomeRandom: Random;
  /** The share of purchases to top up whose buyer turns automatic top-ups on instead (issue 49), and their choices, a stream of their own. */
  autoShare: number;
  autoRandom: Random;
  /** The e-mails the SMTP stand-in received for this address, oldest first (a refused automatic top-up's brings a link). */
  mailsTo: (email: string) => readonly { text: string }[];
}

/** One click of the operator's refund: what was asked, and what each request of it answered in the end. */
export interface OperatorClick {
  orderId: string;
  idempotencyKey: string;
  /** null: the rest of the payment. */
  amountMinor: number | null;
  paidMinor: number;
  doubleClick: boolean;
  /** The action's outcome per request (two for a double click): done, already, refused, pending (still under way), or no answer. */
  answers: string[];
}

/** What the buyers did, and what they saw that must never happen. */
export interface BuyerStats {
  buyers: number;
  /** Orders created (eSIMs and top-ups), by id. */
  orders: Map<string, { kind: 'esim' | 'top_up'; paid: boolean; uid: string; email: string }>;
  esimOrdersStarted: number;
  /** Purchases not started: the run's time for buying was over. */
  notStarted: number;
  paid: number;
  deliveredSeen: number;
  /** Carts paid (several eSIMs on one payment), their eSIMs, and double clicks of Buy all that found the same cart. */
  carts: { paid: number; esims: number; sameOnDoubleClick: number; travellers: number };
  notDeliveredInTime: number;
  gaveUp: number;
  doubleClicks: number;
  /** refused: no top-up offered, or POST /orders answered cannot_top_up; twoAtOnce: eSIMs topped up twice at the same moment. */
  topUps: { ordered: number; paid: number; deliveredSeen: number; installNotSeen: number; refused: number; twoAtOnce: number };
  /** underWayOnRetry: a retry after a lost answer found the refund already under way (409). */
  refunds: { requested: number; accepted: number; underWayOnRetry: number; unavailable: number };
  installedRefundAttempts: number;
  /**
   * Replacements at our cost (issue 46): eSIMs deleted from the phone before they carried data and
   * replaced (the exchange's presses too); deleteNotSeen: the deletion not shown in time (Replace
   * pressed all the same, a refusal then no broken promise); refused: answered 409 not_replaceable;
   * unavailable: no answer in the end (503, 429, lost); deliveredSeen: the new eSIM seen delivered.
   */
  replacements: { asked: number; replaced: number; refused: number; unavailable: number; deleteNotSeen: number; deliveredSeen: number };
  /**
   * Exchanges for another destination (issue 46): opened, paid, the new eSIM seen delivered; the
   * first eSIM replaced, refunded or both pressed at once before the exchange was paid, or Replace
   * pressed just after paying it (racing the exchange's refund at its delivery); refused: POST
   * /orders answered 409 not_exchangeable.
   */
  exchanges: {
    opened: number;
    paid: number;
    deliveredSeen: number;
    replaceFirst: number;
    refundFirst: number;
    bothFirst: number;
    replaceAfterPaying: number;
    refused: number;
  };
  /** Refund and Replace pressed at the same moment on one eSIM: which one was accepted (both: a violation; neither: faults). */
  races: { pressed: number; refundWon: number; replaceWon: number; neither: number };
  /**
   * The operator's refunds: orders, clicks (a part, then maybe the rest), double clicks (one key
   * twice at once), answers lost on the way back (no answer, 5xx) and asked again with the same
   * key, 'under way' answers waited out, refusals (each one a violation).
   */
  operator: {
    orders: number;
    clicks: number;
    partial: number;
    rest: number;
    doubleClicks: number;
    answersLost: number;
    underWay: number;
    refused: number;
  };
  operatorClicks: OperatorClick[];
  /**
   * The operator's blocks (POST /ops/accounts/{uid}/block) of buyers at work: on an open order
   * before its payment (onOpenOrder) or while a paid one is delivered; the blocked buyer's next
   * write refused 403 account_blocked (refusals), then no more; the payment page still held tried
   * (pageRefused: the stand-in's expired page said no; pageTookMoney: it took the card, which the
   * shop must give back); unblocks (the buyer signs in again and buys on); answers lost and asked
   * again with the same key; 'under way' answers waited out.
   */
  blocks: {
    buyers: number;
    blocks: number;
    onOpenOrder: number;
    unblocks: number;
    refusals: number;
    pageRefused: number;
    pageTookMoney: number;
    answersLost: number;
    underWay: number;
  };
  /**
   * Automatic top-ups (issue 49): eSIMs they were turned on for (ticked at checkout, or in My eSIMs
   * with a card saved on Stripe's page), crossings of 10 % left measured, measured again and read by
   * two pages at once; what the buyers saw in the end: charged and applied, refunded (not applied),
   * refused by the bank and paid on-session from the e-mail's link; the card or the outcome not seen
   * in time, an eSIM its partner offers no top-up for, and requests given up after their retries.
   */
  autoTopUps: {
    esims: number;
    atCheckout: number;
    fromMyEsims: number;
    cardsSaved: number;
    crossings: number;
    repeated: number;
    raced: number;
    charged: number;
    refunded: number;
    refused: number;
    paidOnLink: number;
    cardNotSeen: number;
    noTopUps: number;
    notSeen: number;
    gaveUp: number;
  };
  /** Things a buyer (or the operator) saw that break a promise: each one fails the run. */
  violations: string[];
}

interface Answer {
  status: number;
  body: unknown;
  retryAfter: number | undefined;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** Stripe's test cards the buyers pay with: one that pays (off-session too), one whose bank always asks for authentication. */
const CARDS = { pays: '4242424242424242', authenticates: '4000002760003184' } as const;

/** A buyer at work; blocked from the operator's block click until the unblock's answer. */
/** A buyer at work, and the currency they see and pay in (issue 34). */
type Buyer = { uid: string; email: string; token: string; currency: Currency; blocked?: boolean };

export async function runBuyers(settings: BuyerSettings): Promise<BuyerStats> {
  const { api, random } = settings;
  const stats: BuyerStats = {
    buyers: 0,
    carts: { paid: 0, esims: 0, sameOnDoubleClick: 0, travellers: 0 },
    orders: new Map(),
    esimOrdersStarted: 0,
    notStarted: 0,
    paid: 0,
    deliveredSeen: 0,
    notDeliveredInTime: 0,
    gaveUp: 0,
    doubleClicks: 0,
    topUps: { ordered: 0, paid: 0, deliveredSeen: 0, installNotSeen: 0, refused: 0, twoAtOnce: 0 },
    refunds: { requested: 0, accepted: 0, underWayOnRetry: 0, unavailable: 0 },
    installedRefundAttempts: 0,
    replacements: { asked: 0, replaced: 0, refused: 0, unavailable: 0, deleteNotSeen: 0, deliveredSeen: 0 },
    exchanges: { opened: 0, paid: 0, deliveredSeen: 0, replaceFirst: 0, refundFirst: 0, bothFirst: 0, replaceAfterPaying: 0, refused: 0 },
    races: { pressed: 0, refundWon: 0, replaceWon: 0, neither: 0 },
    autoTopUps: {
      esims: 0,
      atCheckout: 0,
      fromMyEsims: 0,
      cardsSaved: 0,
      crossings: 0,
      repeated: 0,
      raced: 0,
      charged: 0,
      refunded: 0,
      refused: 0,
      paidOnLink: 0,
      cardNotSeen: 0,
      noTopUps: 0,
      notSeen: 0,
      gaveUp: 0,
    },
    operator: { orders: 0, clicks: 0, partial: 0, rest: 0, doubleClicks: 0, answersLost: 0, underWay: 0, refused: 0 },
    operatorClicks: [],
    blocks: {
      buyers: 0,
      blocks: 0,
      onOpenOrder: 0,
      unblocks: 0,
      refusals: 0,
      pageRefused: 0,
      pageTookMoney: 0,
      answersLost: 0,
      underWay: 0,
    },
    violations: [],
  };

  // The plan of each buyer decided up front from the seed: one or two eSIMs, and what to do with each.
  type Intent = 'keep' | 'refund' | 'top_up' | 'replace' | 'exchange' | 'auto';
  const buyers: {
    /** The operator blocks this buyer at its first purchase: on the open order before paying, or once paid; then maybe unblocks. */
    block: BlockPlan | undefined;
    currency: Currency;
    purchases: {
      plan: SellablePlan;
      intent: Intent;
      doubleClick: boolean;
      refundInstalled: boolean;
      topUpPick: number;
      /** Two top-ups of the eSIM bought at once (both delivered at the same moment). */
      twoTopUps: boolean;
      /** An operator's refund of the kept eSIM: the part's share of the price, the rest after a pause or never, the part's click double. */
      operator: OperatorPlan | undefined;
      /** Bought in a cart with these other plans, each `quantity` times (the purchase's own plan once or twice). */
      cart: CartPlanItem[] | undefined;
      /** A replacement or an exchange (intent 'replace' or 'exchange'): what the buyer presses, and when. */
      outcome: OutcomePlan | undefined;
      /** Automatic top-ups (intent 'auto'): where they are turned on, the card and the limit, how the crossing is seen. */
      auto: AutoPlan | undefined;
    }[];
  }[] = [];
  type OperatorPlan = { share: number; rest: boolean; pauseMs: number; doubleClick: boolean };
  /** A plan of a cart, `quantity` times, each eSIM for a traveller with their own address or not (issue 33). */
  type CartPlanItem = { plan: SellablePlan; quantity: number; travellers?: Traveller[] };
  type BlockPlan = { onOpenOrder: boolean; unblock: boolean; pauseMs: number; tryPay: boolean };
  /**
   * A replacement: Refund pressed at the same moment or not (race). An exchange: for a plan of
   * another destination (otherPick), pressing on the first eSIM before paying the exchange nothing,
   * Replace, Refund, or both at once, or Replace pressed `delayMs` after paying it (racing the
   * exchange's refund at its delivery); deleted from the phone first when Replace is pressed, else
   * sometimes (deleteFirst).
   */
  type OutcomePlan =
    | { kind: 'replace'; race: boolean }
    | {
        kind: 'exchange';
        before: 'nothing' | 'replace' | 'refund' | 'both' | 'replace_after_paying';
        deleteFirst: boolean;
        otherPick: number;
        delayMs: number;
      };
  /**
   * Automatic top-ups turned on at checkout or in My eSIMs, on a card that pays or one whose bank
   * always asks (then paid from the e-mail's link, or not), at most one or two; the crossing's
   * measure reported again `repeats` times, and read by two pages at once (race).
   */
  type AutoPlan = {
    atCheckout: boolean;
    card: keyof typeof CARDS;
    maxCount: number;
    repeats: number;
    race: boolean;
    payOnLink: boolean;
  };
  const blockRandom = settings.blockRandom;
  /** Five draws for every buyer: each buyer's choice stays put. */
  const blockPlan = (): BlockPlan | undefined => {
    const [blocked, onOpenOrder, unblock, pauseMs, tryPay] = [
      blockRandom(),
      blockRandom() < 0.6,
      blockRandom() < 0.5,
      between(blockRandom, 500, 3_000),
      blockRandom() < 0.5,
    ];
    return blocked < settings.blockShare ? { onOpenOrder, unblock, pauseMs, tryPay } : undefined;
  };
  const operatorRandom = settings.operatorRandom;
  /** Five draws for every purchase, whatever its intent: each purchase's choice stays put. */
  const operatorPlan = (intent: Intent): OperatorPlan | undefined => {
    const [refunds, share, rest, pauseMs, doubleClick] = [
      operatorRandom(),
      0.2 + operatorRandom() * 0.5,
      operatorRandom() < 0.7,
      between(operatorRandom, 300, 3_000),
      operatorRandom() < 0.3,
    ];
    return intent === 'keep' && refunds < settings.operatorShare ? { share, rest, pauseMs, doubleClick } : undefined;
  };
  const cartRandom = settings.cartRandom;
  /**
   * Five draws for every purchase: a cart of the purchase's plan and up to two others, one to four
   * eSIMs in all, and in half of the carts a traveller for each eSIM, every other one with an address.
   */
  const cartPlan = (intent: Intent, plan: SellablePlan): CartPlanItem[] | undefined => {
    const [inCart, twice, others, other, named] = [
      cartRandom(),
      cartRandom() < 0.3,
      Math.floor(cartRandom() * 3),
      cartRandom(),
      cartRandom() < 0.5,
    ];
    if (intent !== 'keep' || inCart >= settings.cartShare) return undefined;
    const items: CartPlanItem[] = [{ plan, quantity: twice ? 2 : 1 }];
    for (let i = 0; i < others; i++) {
      const extra = settings.plans[Math.floor(((other + i / 3) % 1) * settings.plans.length)]!;
      if (!items.some((item) => item.plan.pkg.id === extra.pkg.id)) items.push({ plan: extra, quantity: 1 });
    }
    if (!named) return items;
    return items.map((item, i) => ({
      ...item,
      travellers: Array.from({ length: item.quantity }, (_, k) => ({
        name: `Traveller ${i + 1}.${k + 1}`,
        ...((i + k) % 2 === 0 && { email: `traveller-${crypto.randomUUID()}@example.com` }),
      })),
    }));
  };
  const outcomeRandom = settings.outcomeRandom;
  /** Seven draws for every purchase: each purchase's choice stays put. Only a purchase to keep or refund becomes one. */
  const outcomePlan = (intent: Intent): OutcomePlan | undefined => {
    const [chosen, exchange, race, before, deleteFirst, otherPick, delayMs] = [
      outcomeRandom(),
      outcomeRandom() < 0.5,
      outcomeRandom() < 0.5,
      outcomeRandom(),
      outcomeRandom() < 0.5,
      outcomeRandom(),
      between(outcomeRandom, 0, 3_000),
    ];
    if ((intent !== 'keep' && intent !== 'refund') || chosen >= settings.outcomeShare) return undefined;
    if (!exchange) return { kind: 'replace', race };
    const pressed =
      before < 0.2 ? 'nothing' : before < 0.4 ? 'replace' : before < 0.55 ? 'refund' : before < 0.75 ? 'both' : 'replace_after_paying';
    const replaces = pressed === 'replace' || pressed === 'both' || pressed === 'replace_after_paying';
    return { kind: 'exchange', before: pressed, deleteFirst: replaces || deleteFirst, otherPick, delayMs };
  };
  // Plans the partner tops up, with one volume for their whole validity (a daily plan's data has no crossing of 10 % left).
  const autoPlans = settings.plans.filter((p) => p.pkg.facts.topUp && p.pkg.facts.data.kind === 'total');
  const autoRandom = settings.autoRandom;
  /** Eight draws for every purchase: each purchase's choice stays put. Only a purchase to top up by hand becomes one, of a plan that tops up. */
  const autoPlan = (intent: Intent): (AutoPlan & { plan: SellablePlan }) | undefined => {
    const [chosen, atCheckout, authenticates, twice, repeats, race, payOnLink, planPick] = [
      autoRandom(),
      autoRandom() < 0.5,
      autoRandom() < 0.35,
      autoRandom() < 0.5,
      Math.floor(autoRandom() * 3),
      autoRandom() < 0.5,
      autoRandom() < 0.7,
      autoRandom(),
    ];
    if (intent !== 'top_up' || chosen >= settings.autoShare || autoPlans.length === 0) return undefined;
    const plan = autoPlans[Math.floor(planPick * autoPlans.length)]!;
    return { plan, atCheckout, card: authenticates ? 'authenticates' : 'pays', maxCount: twice ? 2 : 1, repeats, race, payOnLink };
  };
  for (let left = settings.orders; left > 0;) {
    const count = Math.min(left, random() < 0.5 ? 1 : 2);
    left -= count;
    buyers.push({
      block: blockPlan(),
      currency: pick(settings.currencyRandom, CURRENCIES),
      purchases: Array.from({ length: count }, () => {
        const r = random();
        let intent: Intent = r < settings.refundShare ? 'refund' : r < settings.refundShare + settings.topUpShare ? 'top_up' : 'keep';
        const picked = pick(random, settings.plans);
        const outcome = outcomePlan(intent);
        if (outcome) intent = outcome.kind;
        const { plan: autoPlanned, ...auto } = autoPlan(intent) ?? {};
        if (autoPlanned) intent = 'auto';
        const plan = autoPlanned ?? picked;
        return {
          plan,
          intent,
          doubleClick: random() < 0.1,
          refundInstalled: random() < 0.4,
          topUpPick: random(),
          twoTopUps: random() < 0.5,
          operator: operatorPlan(intent),
          cart: cartPlan(intent, plan),
          outcome,
          auto: autoPlanned ? (auto as AutoPlan) : undefined,
        };
      }),
    });
  }

  // At least one buyer blocked (among the first half, who start in a bounded run), at least one of them on an open order.
  if (settings.blockShare > 0 && buyers.length > 0 && !buyers.some((b) => b.block)) {
    buyers[Math.floor(blockRandom() * Math.ceil(buyers.length / 2))]!.block = {
      onOpenOrder: true,
      unblock: blockRandom() < 0.5,
      pauseMs: between(blockRandom, 500, 3_000),
      tryPay: blockRandom() < 0.5,
    };
  }
  if (!buyers.some((b) => b.block?.onOpenOrder)) {
    const first = buyers.find((b) => b.block);
    if (first) first.block!.onOpenOrder = true;
  }
  // At least one cart of two plans (among the first half), on a buyer's purchase the operator's block does not touch.
  const carts = buyers.flatMap((b) => b.purchases.filter((p, i) => p.cart && !(i === 0 && b.block)));
  if (settings.cartShare > 0 && !carts.some((p) => p.cart!.length > 1)) {
    const buyer = buyers.slice(0, Math.ceil(buyers.length / 2)).find((b) => !b.block && b.purchases[0]!.intent === 'keep');
    const other = settings.plans.find((p) => p.pkg.id !== buyer?.purchases[0]!.plan.pkg.id);
    if (buyer && other) {
      const purchase = buyer.purchases[0]!;
      purchase.cart = [
        { plan: purchase.plan, quantity: 2 },
        { plan: other, quantity: 1 },
      ];
      purchase.operator = undefined;
    }
  }

  // At least one replacement raced by a refund, one exchange with a replacement pressed before it is
  // paid (the review's case) and one with nothing pressed (refunded as exchanged at its delivery),
  // among the first half, on purchases the operator's block does not touch.
  const firstHalf = buyers.slice(0, Math.ceil(buyers.length / 2));
  const untouched = firstHalf.flatMap((b) =>
    b.purchases.filter((p, i) => !(i === 0 && b.block) && !p.cart && p.intent !== 'top_up' && p.intent !== 'auto'),
  );
  const insist = (wanted: OutcomePlan, has: (o: OutcomePlan | undefined) => boolean) => {
    if (settings.outcomeShare <= 0 || untouched.some((p) => has(p.outcome))) return;
    const purchase = untouched.find((p) => !p.outcome) ?? untouched.find((p) => !insisted.has(p) && p.outcome?.kind !== wanted.kind);
    if (!purchase) return;
    purchase.intent = wanted.kind;
    purchase.outcome = wanted;
    purchase.operator = undefined;
    insisted.add(purchase);
  };
  const insisted = new Set<(typeof untouched)[number]>();
  insist({ kind: 'replace', race: true }, (o) => o?.kind === 'replace' && o.race);
  insist(
    { kind: 'exchange', before: 'replace', deleteFirst: true, otherPick: outcomeRandom(), delayMs: 0 },
    (o) => o?.kind === 'exchange' && (o.before === 'replace' || o.before === 'both'),
  );
  insist(
    { kind: 'exchange', before: 'nothing', deleteFirst: false, otherPick: outcomeRandom(), delayMs: 0 },
    (o) => o?.kind === 'exchange' && o.before === 'nothing',
  );

  // At least one operator refund of a part and then the rest, among the first half (who start in a
  // bounded run), on a kept purchase the block, a cart and the outcomes above leave alone: a short
  // run whose plans drew the rest only for later buyers would otherwise never click it.
  if (settings.operatorShare > 0 && !untouched.some((p) => p.operator?.rest)) {
    const kept = untouched.find((p) => p.operator) ?? untouched.find((p) => p.intent === 'keep' && !p.outcome);
    if (kept) kept.operator = { share: 0.5, pauseMs: 1_000, doubleClick: false, ...kept.operator, rest: true };
  }

  // At least two buyers with automatic top-ups on a card that pays, ticked at checkout, and one turned
  // on in My eSIMs with a card whose bank always asks (paid from the e-mail's link): another buyer's
  // choice of them changed, or a buyer who would top up by hand made one.
  const insistedAuto = new Set<(typeof buyers)[number]['purchases'][number]>();
  const insistAuto = (atCheckout: boolean, card: AutoPlan['card'], atLeast = 1) => {
    if (settings.autoShare <= 0 || autoPlans.length === 0) return;
    // The first half's first (they start in a bounded run), then the others'.
    const candidates = [...firstHalf, ...buyers.slice(firstHalf.length)].flatMap((b) =>
      b.purchases.filter((_, i) => !(i === 0 && b.block)),
    );
    const fits = candidates.filter((p) => p.intent === 'auto' && p.auto?.atCheckout === atCheckout && p.auto.card === card);
    for (const p of fits.slice(0, atLeast)) insistedAuto.add(p);
    if (fits.length >= atLeast) return;
    const purchase = candidates.find((p) => p.intent === 'auto' && !insistedAuto.has(p)) ?? candidates.find((p) => p.intent === 'top_up');
    if (!purchase) return;
    insistedAuto.add(purchase);
    if (purchase.intent !== 'auto') {
      purchase.intent = 'auto';
      purchase.plan = autoPlans[0]!;
    }
    purchase.auto = { atCheckout, card, maxCount: 1, repeats: 1, race: true, payOnLink: true };
    insistAuto(atCheckout, card, atLeast);
  };
  // Two that pay: a traveller's install not seen in time (faults, kills) ends that buyer's try early.
  insistAuto(true, 'pays', 2);
  insistAuto(false, 'authenticates');

  /** One request through the front; network failures answer status 0. */
  async function request(path: string, init: { method?: string; token: string; body?: unknown }): Promise<Answer> {
    try {
      const response = await fetch(`${api}${path}`, {
        method: init.method ?? 'GET',
        headers: { Authorization: `Bearer ${init.token}`, ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      const retryAfter = response.headers.get('retry-after');
      return { status: response.status, body, retryAfter: retryAfter ? Number(retryAfter) : undefined };
    } catch {
      return { status: 0, body: undefined, retryAfter: undefined };
    }
  }

  /** A request retried as a person would: after a 5xx or no answer, a few times; after a 429, once its wait is over. */
  async function persist(path: string, init: { method?: string; token: string; body?: unknown }, tries = 8): Promise<Answer> {
    let answer: Answer = { status: 0, body: undefined, retryAfter: undefined };
    for (let attempt = 1; attempt <= tries; attempt++) {
      answer = await request(path, init);
      if (answer.status === 429) {
        await sleep(Math.min(65, answer.retryAfter ?? 5) * 1000 + 200);
        attempt--;
        continue;
      }
      if (answer.status !== 0 && answer.status < 500) return answer;
      await sleep(Math.min(4_000, 300 * 2 ** (attempt - 1)));
    }
    return answer;
  }

  const errorCode = (body: unknown) => (body as { error?: { code?: string } } | undefined)?.error?.code;

  /** What a GET answers when it answers 200, else undefined. */
  async function read<T>(path: string, token: string): Promise<T | undefined> {
    const answer = await request(path, { token });
    return answer.status === 200 ? (answer.body as T) : undefined;
  }

  /** Reads until `done` holds or the wait is over, at the success page's pace: the last answer read. */
  async function poll<T>(next: () => Promise<T | undefined>, done: (value: T) => boolean, ms: number): Promise<T | undefined> {
    const deadline = Date.now() + ms;
    let last: T | undefined;
    while (Date.now() < deadline) {
      last = (await next()) ?? last;
      if (last !== undefined && done(last)) return last;
      await sleep(700);
    }
    return last;
  }

  /** Reads the order until `done` holds or the wait is over. */
  const waitOrder = (token: string, id: string, done: (order: OrderView) => boolean, ms = settings.deliveryWaitMs) =>
    poll(() => read<OrderView>(`/orders/${id}?lang=en`, token), done, ms);

  const FINAL = new Set(['refunded', 'expired', 'cancelled', 'payment_failed']);
  const delivered = (order: OrderView) => order.state === 'delivered' && (order.kind === 'top_up' || !!order.esim?.install);

  /** One press of Pay (card 4242 unless named) on the Stripe stand-in's hosted page: its status (303: it took the card), undefined without an answer. */
  async function pressPay(checkoutUrl: string, card: string = CARDS.pays): Promise<number | undefined> {
    const paid = await fetch(checkoutUrl, {
      method: 'POST',
      body: new URLSearchParams({ action: 'pay', card }),
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    }).catch(() => undefined);
    return paid?.status;
  }

  /**
   * Pays on the Stripe stand-in's hosted page with card 4242, up to three tries. The page is
   * Stripe's, not behind our fault proxy: the buyer's browser talks to it directly. False (and a
   * violation recorded for `what`) when the page never took the card.
   */
  async function payWithTestCard(checkoutUrl: string, what: string, card: string = CARDS.pays): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const status = await pressPay(checkoutUrl, card);
      if (status === 303) return true;
      if (attempt >= 3) {
        stats.violations.push(`${what}: the Stripe stand-in's page did not take card 4242 (${status ?? 'no answer'})`);
        return false;
      }
      await sleep(500);
    }
  }

  /**
   * POST /orders then the payment: the order's id once paid, else undefined. `beforePay` comes
   * between the two (the operator's block of a buyer on the payment page): false, the buyer does not pay.
   */
  async function buy(
    buyer: Buyer,
    body: CreateOrderRequest,
    kind: 'esim' | 'top_up',
    doubleClick: boolean,
    beforePay?: (orderId: string, checkoutUrl: string) => Promise<boolean>,
    onRefused?: (answer: Answer) => boolean,
    card: string = CARDS.pays,
  ): Promise<string | undefined> {
    let answer: Answer;
    if (doubleClick) {
      stats.doubleClicks++;
      const [a, b] = await Promise.all([
        persist('/orders', { method: 'POST', token: buyer.token, body }),
        persist('/orders', { method: 'POST', token: buyer.token, body }),
      ]);
      const [idA, idB] = [a, b].map((x) => (x.status < 300 ? (x.body as { order: { id: string } }).order.id : undefined));
      if (idA && idB && idA !== idB) stats.violations.push(`a double click opened two orders for one buyer and plan: ${idA} and ${idB}`);
      answer = idA ? a : b;
    } else {
      answer = await persist('/orders', { method: 'POST', token: buyer.token, body });
    }
    if (answer.status >= 300 || answer.status === 0) {
      // Blocked: a final refusal, never asked again.
      if (answer.status === 403 && errorCode(answer.body) === 'account_blocked') {
        if (buyer.blocked) stats.blocks.refusals++;
        else stats.violations.push(`buyer ${buyer.uid}: an order refused account_blocked, but the account is not blocked`);
        return undefined;
      }
      if (buyer.blocked)
        stats.violations.push(
          `buyer ${buyer.uid}: blocked, an order answered ${answer.status} ${errorCode(answer.body) ?? ''}, not 403 account_blocked`,
        );
      if (kind === 'top_up' && errorCode(answer.body) === 'cannot_top_up') stats.topUps.refused++;
      else if (!onRefused?.(answer)) stats.gaveUp++;
      return undefined;
    }
    const { order, checkoutUrl } = answer.body as { order: { id: string }; checkoutUrl: string };
    stats.orders.set(order.id, { kind, paid: false, uid: buyer.uid, email: buyer.email });
    if (buyer.blocked) stats.violations.push(`buyer ${buyer.uid}: blocked, yet POST /orders opened order ${order.id}`);
    if (beforePay && !(await beforePay(order.id, checkoutUrl))) return undefined;
    if (!(await payWithTestCard(checkoutUrl, `order ${order.id}`, card))) return undefined;
    stats.orders.get(order.id)!.paid = true;
    return order.id;
  }

  /**
   * A cart (issue 33): POST /carts (twice at once for a double click: the same cart), one payment,
   * then each eSIM waited for on its own (counted delivered in time, or not).
   */
  async function buyCart(buyer: Buyer, items: CartPlanItem[], doubleClick: boolean): Promise<void> {
    const body: CreateCartRequest = {
      items: items.map(({ plan, quantity, travellers }) => ({
        planId: plan.pkg.id,
        quantity,
        expectedPrice: priceIn(plan.prices, buyer.currency),
        ...(travellers && { travellers }),
      })),
      lang: 'en',
      consents: { terms: true, immediateStart: true },
    };
    const asks = await Promise.all(
      Array.from({ length: doubleClick ? 2 : 1 }, () => persist('/carts', { method: 'POST', token: buyer.token, body })),
    );
    const opened = asks.map((a) => (a.status < 300 && a.status > 0 ? (a.body as CreateCartResponse) : undefined));
    if (doubleClick) {
      stats.doubleClicks++;
      const [a, b] = opened;
      if (a && b && a.cart.id !== b.cart.id)
        stats.violations.push(`a double click of Buy all opened two carts: ${a.cart.id} and ${b.cart.id}`);
      else if (a && b) stats.carts.sameOnDoubleClick++;
    }
    const cart = opened.find(Boolean);
    if (!cart) return void stats.gaveUp++;
    const ids = cart.cart.orders.map((o) => o.id);
    const wanted = items.reduce((sum, item) => sum + item.quantity, 0);
    if (ids.length !== wanted) stats.violations.push(`cart ${cart.cart.id}: ${ids.length} orders for ${wanted} eSIMs`);
    for (const id of ids) stats.orders.set(id, { kind: 'esim', paid: false, uid: buyer.uid, email: buyer.email });
    if (!(await payWithTestCard(cart.checkoutUrl, `cart ${cart.cart.id}`))) return;
    for (const id of ids) stats.orders.get(id)!.paid = true;
    stats.paid += ids.length;
    stats.carts.paid++;
    stats.carts.esims += ids.length;
    stats.carts.travellers += items.reduce((sum, item) => sum + (item.travellers?.length ?? 0), 0);
    const seen = await Promise.all(ids.map((id) => waitOrder(buyer.token, id, (o) => delivered(o) || FINAL.has(o.state))));
    for (const order of seen) {
      if (order && delivered(order)) stats.deliveredSeen++;
      else stats.notDeliveredInTime++;
    }
  }

  /** The one eSIM a partner issued for this delivered order (a violation when none did, or more than one). */
  async function esimOf(id: string) {
    const found = (await esimsOfOrders(settings.partners)).get(id) ?? [];
    if (found.length !== 1)
      stats.violations.push(
        `order ${id}: delivered, but the partners issued ${found.length} eSIMs for it (${found.map((f) => `${f.partner.id} ${f.key}`).join(', ')})`,
      );
    return found.length === 1 ? found[0] : undefined;
  }

  /** The traveller installs the eSIM, and the buyer waits for My eSIMs to show it in use: its eSIM at the partner, or undefined (not seen in time: counted). */
  async function installSeen(buyer: Buyer, id: string) {
    const esim = await esimOf(id);
    if (!esim) return;
    try {
      esim.partner.phone(esim.key).install();
    } catch (error) {
      return void stats.violations.push(
        `order ${id}: ${esim.partner.id} could not install its eSIM ${esim.key} (${(error as Error).message})`,
      );
    }
    // The partner's notification tells the shop; if it was lost, My eSIMs reads the partner when its copy is old.
    let seen = await waitOrder(buyer.token, id, (o) => o.esim?.status === 'active', 6_000);
    if (seen?.esim?.status !== 'active') {
      await persist('/esims?lang=en', { token: buyer.token }, 3);
      seen = await waitOrder(buyer.token, id, (o) => o.esim?.status === 'active', 4_000);
    }
    if (seen?.esim?.status === 'active') return esim;
    stats.topUps.installNotSeen++;
    return undefined;
  }

  async function installAndTopUp(buyer: Buyer, id: string, refundInstalled: boolean, topUpPick: number, twoTopUps: boolean) {
    if (!(await installSeen(buyer, id))) return;
    // The plans My eSIMs offers for this eSIM, as the page asks for them.
    const offer = await persist(`/esims/${id}/top-ups?lang=en`, { token: buyer.token }, 4);
    const offered = offer.status === 200 ? (offer.body as TopUpPlans).plans : [];
    if (offered.length === 0) {
      stats.topUps.refused++;
      return;
    }
    const first = Math.floor(topUpPick * offered.length);
    // Two different plans (one open order per plan): the next one along.
    const picks = twoTopUps && offered.length > 1 ? [first, (first + 1) % offered.length] : [first];
    if (picks.length > 1) stats.topUps.twoAtOnce++;
    await Promise.all(
      picks.map(async (pick) => {
        const extra = offered[pick]!;
        stats.topUps.ordered++;
        const topUpId = await buy(
          buyer,
          { planId: extra.id, lang: 'en', expectedPrice: extra.price, consents: { terms: true, immediateStart: true }, topUpOf: id },
          'top_up',
          false,
        );
        if (!topUpId) return;
        stats.topUps.paid++;
        stats.paid++;
        const after = await waitOrder(buyer.token, topUpId, (o) => delivered(o) || FINAL.has(o.state));
        if (after && delivered(after)) stats.topUps.deliveredSeen++;
      }),
    );
    if (refundInstalled) {
      // Installed: not refundable (terms). Any answer but 409 (or a failure to answer) is a broken promise.
      stats.installedRefundAttempts++;
      const answer = await persist(`/esims/${id}/refund?lang=en`, { method: 'POST', token: buyer.token }, 4);
      if (answer.status === 200) stats.violations.push(`order ${id}: a refund of an installed eSIM was accepted`);
    }
  }

  /**
   * The traveller installs the eSIM and deletes it before it carried data (the stand-in's hook: the
   * phone), and the buyer waits for My eSIMs to show it deleted, refundable and replaceable (the
   * partner's notification, or, lost, My eSIMs reading the partner). False: not seen in time.
   */
  async function deleteBeforeData(buyer: Buyer, id: string): Promise<boolean | undefined> {
    const esim = await esimOf(id);
    if (!esim) return;
    try {
      esim.partner.phone(esim.key).deleteUnused();
    } catch (error) {
      return void stats.violations.push(
        `order ${id}: ${esim.partner.id} could not delete its eSIM ${esim.key} (${(error as Error).message})`,
      );
    }
    const shown = (o: OrderView) => o.esim?.installStep === 'deleted' && o.esim.refundable && o.esim.replaceable;
    if (await waitOrder(buyer.token, id, shown, 6_000).then((o) => o && shown(o))) return true;
    await persist('/esims?lang=en', { token: buyer.token }, 3);
    if (await waitOrder(buyer.token, id, shown, 4_000).then((o) => o && shown(o))) return true;
    stats.replacements.deleteNotSeen++;
    return false;
  }

  /** One press of a button of My eSIMs (refund, replace): asked again as a person would after no answer or a 5xx. */
  async function press(buyer: Buyer, id: string, what: 'refund' | 'replace'): Promise<Answer> {
    const path = `/esims/${id}/${what}?lang=en`;
    const first = await request(path, { method: 'POST', token: buyer.token });
    if (first.status !== 0 && first.status < 500 && first.status !== 429) return first;
    return persist(path, { method: 'POST', token: buyer.token }, 6);
  }

  /** Replace pressed (alone, or with Refund at the same moment): the replacement's id when it was accepted. */
  async function pressReplace(
    buyer: Buyer,
    id: string,
    race: boolean,
    deletionSeen: boolean,
    mayBeRefused = false,
  ): Promise<string | undefined> {
    stats.replacements.asked++;
    if (race) stats.races.pressed++;
    const [replaced, refunded] = await Promise.all([
      press(buyer, id, 'replace'),
      race ? press(buyer, id, 'refund') : Promise.resolve(undefined),
    ]);
    if (refunded) stats.refunds.requested++;
    if (refunded?.status === 200) stats.refunds.accepted++;
    if (replaced.status === 200) stats.replacements.replaced++;
    else if (replaced.status === 409) stats.replacements.refused++;
    else stats.replacements.unavailable++;
    if (race) {
      if (replaced.status === 200 && refunded?.status === 200)
        stats.violations.push(
          `order ${id}: Refund and Replace pressed at once, both accepted (replacement ${(replaced.body as EsimView).id})`,
        );
      else if (replaced.status === 200) stats.races.replaceWon++;
      else if (refunded?.status === 200) stats.races.refundWon++;
      else stats.races.neither++;
    } else if (replaced.status === 409 && deletionSeen && !mayBeRefused) {
      // Deleted before it carried data, shown replaceable, nothing else pressed: a refusal is a broken promise.
      stats.violations.push(
        `order ${id}: deleted before data and shown replaceable, its replacement was refused (${errorCode(replaced.body) ?? '409'})`,
      );
    }
    return replaced.status === 200 ? (replaced.body as EsimView).id : undefined;
  }

  /** The replacement's delivery, as the buyer's page waits for it. */
  async function waitReplacement(buyer: Buyer, replacementId: string) {
    const seen = await waitOrder(buyer.token, replacementId, (o) => delivered(o) || FINAL.has(o.state));
    if (seen && delivered(seen)) stats.replacements.deliveredSeen++;
  }

  /** Deleted before data, then Replace pressed, Refund at the same moment for a race. */
  async function replaceEsim(buyer: Buyer, id: string, race: boolean) {
    const seen = await deleteBeforeData(buyer, id);
    if (seen === undefined) return;
    const replacementId = await pressReplace(buyer, id, race, seen);
    if (replacementId) await waitReplacement(buyer, replacementId);
  }

  /**
   * An exchange for another destination's plan: the exchange opened naming the first eSIM, then,
   * before it is paid, Replace, Refund or both pressed on the first eSIM (or nothing), then paid
   * (and Replace pressed a moment later, for some), and its eSIM waited for. The first one's fate is the shop's to decide, one outcome; the checks
   * read what Stripe gave back.
   */
  async function exchangeEsim(buyer: Buyer, id: string, first: SellablePlan, plan: Extract<OutcomePlan, { kind: 'exchange' }>) {
    const others = settings.plans.filter((p) => p.destination.code !== first.destination.code);
    if (others.length === 0) return;
    const other = others[Math.floor(plan.otherPick * others.length)]!;
    let deletionSeen = false;
    if (plan.deleteFirst) {
      const seen = await deleteBeforeData(buyer, id);
      if (seen === undefined) return;
      deletionSeen = seen;
    }
    const body: CreateOrderRequest = {
      planId: other.pkg.id,
      lang: 'en',
      expectedPrice: priceIn(other.prices, buyer.currency),
      consents: { terms: true, immediateStart: true },
      exchangeOf: id,
    };
    let replacementId: string | undefined;
    const exchangeId = await buy(
      buyer,
      body,
      'esim',
      false,
      async () => {
        stats.exchanges.opened++;
        if (plan.before === 'replace' || plan.before === 'both') {
          if (plan.before === 'both') stats.exchanges.bothFirst++;
          else stats.exchanges.replaceFirst++;
          replacementId = await pressReplace(buyer, id, plan.before === 'both', deletionSeen);
        } else if (plan.before === 'refund') {
          stats.exchanges.refundFirst++;
          if (!plan.deleteFirst || deletionSeen) await requestRefund(buyer, id);
          else {
            // Its deletion not shown yet: the shop may refuse on what it knows, no broken promise.
            stats.refunds.requested++;
            if ((await press(buyer, id, 'refund')).status === 200) stats.refunds.accepted++;
          }
        }
        return true;
      },
      (answer) => {
        if (answer.status !== 409 || errorCode(answer.body) !== 'not_exchangeable') return false;
        stats.exchanges.refused++;
        // A never-installed eSIM of today, or one shown deleted before it carried data, is exchangeable.
        if (!plan.deleteFirst || deletionSeen)
          stats.violations.push(
            `order ${id}: its exchange for ${other.pkg.id} was refused (${(answer.body as { error?: { reason?: string } }).error?.reason ?? 'no reason'})`,
          );
        return true;
      },
    );
    if (!exchangeId) return;
    stats.exchanges.paid++;
    stats.paid++;
    if (plan.before === 'replace_after_paying') {
      // Racing the exchange's refund at its delivery: whichever is decided first, the other refused.
      stats.exchanges.replaceAfterPaying++;
      await sleep(plan.delayMs);
      replacementId = await pressReplace(buyer, id, false, deletionSeen, true);
    }
    const [seen] = await Promise.all([
      waitOrder(buyer.token, exchangeId, (o) => delivered(o) || FINAL.has(o.state)),
      replacementId ? waitReplacement(buyer, replacementId) : undefined,
    ]);
    if (seen && delivered(seen)) stats.exchanges.deliveredSeen++;
  }

  async function requestRefund(buyer: { token: string }, id: string) {
    stats.refunds.requested++;
    const first = await request(`/esims/${id}/refund?lang=en`, { method: 'POST', token: buyer.token });
    // A never-installed eSIM of today is refundable: refused at the first answer is a broken promise.
    if (first.status === 409)
      return void stats.violations.push(
        `order ${id}: the refund of a never-installed eSIM was refused (${errorCode(first.body) ?? '409'})`,
      );
    const answer = first.status === 200 ? first : await persist(`/esims/${id}/refund?lang=en`, { method: 'POST', token: buyer.token }, 6);
    if (answer.status === 200) stats.refunds.accepted++;
    // A retry after a lost answer (the instance was killed, a 5xx) finds the refund under way: 409.
    else if (answer.status === 409) stats.refunds.underWayOnRetry++;
    else stats.refunds.unavailable++;
  }

  /** The back office's admin: signed up, given the role, signed in again so that the ID token carries it (once, when first needed). */
  let admin: Promise<string> | undefined;
  const adminToken = () =>
    (admin ??= (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          const account = await signUpOn(settings.authHost, `operator-${crypto.randomUUID()}@example.test`);
          await grantRoleOn(settings.authHost, account.uid, 'admin');
          return (await signInOn(settings.authHost, account.email)).idToken;
        } catch (error) {
          if (attempt >= 5) throw error;
          await sleep(500);
        }
      }
    })());

  /**
   * One request of an operator's refund click, asked again with the same key until the action
   * answers its outcome: after no answer or a 5xx (an instance killed, Stripe slow), and after
   * 'under way' (the other request of a double click, or a try cut short), as a person reloads.
   */
  async function operatorAsk(
    token: string,
    path: string,
    body: object,
    counts: { answersLost: number; underWay: number } = stats.operator,
  ): Promise<{ outcome: string; detail: string | null }> {
    let last = { outcome: 'no answer', detail: null as string | null };
    for (let attempt = 1; attempt <= 20; attempt++) {
      const answer = await request(path, { method: 'POST', token, body });
      if (answer.status === 0 || answer.status >= 500) {
        counts.answersLost++;
        await sleep(Math.min(4_000, 300 * 2 ** Math.min(attempt - 1, 4)));
        continue;
      }
      if (answer.status !== 200) return { outcome: `HTTP ${answer.status} ${errorCode(answer.body) ?? ''}`.trim(), detail: null };
      last = answer.body as { outcome: string; detail: string | null };
      if (last.outcome !== 'pending') return last;
      counts.underWay++;
      await sleep(1_000);
    }
    return last;
  }

  /** One click of the order page's refund dialog (one idempotency key), or two at once with the same key. */
  async function operatorClick(token: string, orderId: string, paidMinor: number, amountMinor: number | null, doubleClick: boolean) {
    const idempotencyKey = crypto.randomUUID();
    const body = {
      reason: amountMinor === null ? 'fault run: the rest of the price back' : 'fault run: part of the price back, as a goodwill gesture',
      idempotencyKey,
      ...(amountMinor !== null && { amountMinor }),
    };
    stats.operator.clicks++;
    if (amountMinor === null) stats.operator.rest++;
    else stats.operator.partial++;
    if (doubleClick) stats.operator.doubleClicks++;
    const answers = await Promise.all(
      Array.from({ length: doubleClick ? 2 : 1 }, () => operatorAsk(token, `/ops/orders/${orderId}/refunds`, body)),
    );
    stats.operatorClicks.push({ orderId, idempotencyKey, amountMinor, paidMinor, doubleClick, answers: answers.map((a) => a.outcome) });
    // A part of a delivered order's payment, or what is left of it, is always possible.
    for (const answer of answers.filter((a) => a.outcome !== 'done' && a.outcome !== 'already' && a.outcome !== 'pending')) {
      if (answer.outcome === 'refused') stats.operator.refused++;
      stats.violations.push(
        `order ${orderId}: the operator's refund of ${amountMinor ?? 'the rest'} (key ${idempotencyKey}) answered ${answer.outcome}${answer.detail ? `: ${answer.detail}` : ''}`,
      );
    }
  }

  /** The operator's refunds of a kept eSIM: a part, and the rest after a pause (or never). */
  async function operatorRefunds(orderId: string, paidMinor: number, plan: OperatorPlan) {
    stats.operator.orders++;
    let token: string;
    try {
      token = await adminToken();
    } catch (error) {
      return void stats.violations.push(`operator: could not sign in as an admin (${(error as Error).message})`);
    }
    await operatorClick(token, orderId, paidMinor, Math.max(1, Math.floor(paidMinor * plan.share)), plan.doubleClick);
    if (!plan.rest) return;
    await sleep(plan.pauseMs);
    await operatorClick(token, orderId, paidMinor, null, false);
  }
  const operatorWork: Promise<void>[] = [];

  /** The operator's block or unblock of an account: one click (one key), asked again with the same key until it answers. */
  async function operatorAccount(uid: string, action: 'block' | 'unblock'): Promise<boolean> {
    let token: string;
    try {
      token = await adminToken();
    } catch (error) {
      stats.violations.push(`operator: could not sign in as an admin (${(error as Error).message})`);
      return false;
    }
    const body = {
      reason: action === 'block' ? 'fault run: card testing suspected' : 'fault run: the buyer explained, unblocked',
      idempotencyKey: crypto.randomUUID(),
    };
    const answer = await operatorAsk(token, `/ops/accounts/${uid}/${action}`, body, stats.blocks);
    if (answer.outcome === 'done' || answer.outcome === 'already') return true;
    stats.violations.push(
      `buyer ${uid}: the operator's ${action} (key ${body.idempotencyKey}) answered ${answer.outcome}${answer.detail ? `: ${answer.detail}` : ''}`,
    );
    return false;
  }

  /** The operator blocks a buyer at work: from the click on, the buyer counts as blocked. */
  async function blockBuyer(buyer: Buyer, onOpenOrder: boolean) {
    buyer.blocked = true;
    stats.blocks.buyers++;
    stats.blocks.blocks++;
    if (onOpenOrder) stats.blocks.onOpenOrder++;
    await operatorAccount(buyer.uid, 'block');
  }

  /** Blocked on the payment page: the buyer may still press Pay on the page it holds, which the stand-in must refuse (expired). */
  async function blockOnPage(buyer: Buyer, checkoutUrl: string, plan: BlockPlan): Promise<false> {
    await blockBuyer(buyer, true);
    if (plan.tryPay) {
      // Taken: the page's expiry at Stripe did not get through yet (the job closes it later); the shop must give the payment back.
      const status = await pressPay(checkoutUrl);
      if (status === 303) stats.blocks.pageTookMoney++;
      else if (status === 409) stats.blocks.pageRefused++;
    }
    return false;
  }

  /**
   * Blocked: the buyer presses Buy again, refused 403 account_blocked, a final answer (no retry);
   * then, if the operator unblocks, the buyer signs in again (the block revoked the session) and
   * goes on. Answers whether the buyer goes on.
   */
  async function afterBlock(buyer: Buyer, body: CreateOrderRequest, plan: BlockPlan): Promise<boolean> {
    await buy(buyer, body, 'esim', false, async () => false);
    if (!plan.unblock) return false;
    await sleep(plan.pauseMs);
    if (!(await operatorAccount(buyer.uid, 'unblock'))) return false;
    stats.blocks.unblocks++;
    for (let attempt = 1; ; attempt++) {
      try {
        buyer.token = (await signInOn(settings.authHost, buyer.email)).idToken;
        break;
      } catch (error) {
        if (attempt >= 3) {
          stats.violations.push(`buyer ${buyer.uid}: unblocked, but could not sign in again (${(error as Error).message})`);
          return false;
        }
        await sleep(500);
      }
    }
    buyer.blocked = false;
    return true;
  }

  /** The limits a buyer sets: at most `maxCount` automatic top-ups, and a month's cap that the eSIM's price four times over leaves room for. */
  const autoLimits = (plan: AutoPlan, priceMinor: number) => ({
    maxCount: plan.maxCount,
    monthlyCapMinor: Math.min(1_000_000, priceMinor * plan.maxCount * 4),
  });

  /**
   * Saves a card on Stripe's page from My eSIMs, as the buyer's browser does: the page asked of the
   * shop, the card typed there, and the return reported (the shop reads the card from Stripe; the
   * webhook may come first, or later). False when the buyer could not get through.
   */
  async function saveCard(buyer: Buyer, esimId: string, card: string): Promise<boolean> {
    const page = await persist('/me/card', { method: 'POST', token: buyer.token, body: { lang: 'en', esimId } }, 6);
    if (page.status !== 200) return (void stats.autoTopUps.gaveUp++, false);
    const saved = await fetch((page.body as { url: string }).url, {
      method: 'POST',
      body: new URLSearchParams({ action: 'save', card }),
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    }).catch(() => undefined);
    const sessionId = saved?.status === 303 ? new URL(saved.headers.get('location')!).searchParams.get('card_saved') : null;
    if (!sessionId) return (void stats.violations.push(`buyer ${buyer.uid}: Stripe's page did not save card ${card}`), false);
    stats.autoTopUps.cardsSaved++;
    await persist('/me/card/saved', { method: 'POST', token: buyer.token, body: { sessionId } }, 6);
    return true;
  }

  /** The pay link of the latest e-mail about a refused automatic top-up to this address (its token's purpose is 'pay'). */
  const payLinkIn = (email: string) =>
    settings
      .mailsTo(email)
      .flatMap((m) => [...m.text.matchAll(/\/auto-top-up\?token=([^\s>)"]+)/g)].map((match) => match[1]!))
      .filter((token) => Buffer.from(token.split('.')[0]!, 'base64url').toString() === 'pay')
      .at(-1);

  const ENDED_CHARGE = new Set(['delivered', 'refunded', 'payment_failed']);

  /**
   * Automatic top-ups of a delivered eSIM (issue 49): turned on at checkout (its payment saved the
   * card) or, once it is installed, in My eSIMs; the card seen saved; the eSIM used until 10 % is
   * left, the measure reported again and My eSIMs read by two pages at once; then the buyer watches the
   * eSIM's automatic top-ups: card 4242 charged off-session and the top-up applied (or refunded),
   * card 3184 refused, and, for some, paid on-session from the e-mail's link.
   */
  async function autoTopUps(buyer: Buyer, id: string, plan: AutoPlan, priceMinor: number) {
    const a = stats.autoTopUps;
    a.esims++;
    const path = `/auto-top-ups/esims/${id}?lang=en`;
    if (plan.atCheckout) a.atCheckout++;
    // My eSIMs offers them for an eSIM in use: installed first.
    const esim = await installSeen(buyer, id);
    if (!esim) return;
    if (!plan.atCheckout) {
      const body = { packageId: null, lang: 'en', ...autoLimits(plan, priceMinor) };
      const on = await persist(path, { method: 'PUT', token: buyer.token, body }, 6);
      if (on.status === 0 || on.status >= 500) return void a.gaveUp++;
      // The eSIM's partner offers no top-up for it (eSIM Go's bundle): My eSIMs says so.
      if (on.status === 409 && errorCode(on.body) === 'esim_cannot_top_up') return void a.noTopUps++;
      if (on.status !== 200)
        return void stats.violations.push(`order ${id}: turning automatic top-ups on answered ${on.status} ${errorCode(on.body) ?? ''}`);
      a.fromMyEsims++;
      if (!(await saveCard(buyer, id, CARDS[plan.card]))) return;
    }
    const card = await poll(
      () => read<SavedCardAnswer>('/me/card', buyer.token),
      (answer) => answer.card !== null,
      20_000,
    );
    if (!card?.card) return void a.cardNotSeen++;
    let again: () => void;
    try {
      again = await esim.partner.phone(esim.key).useNearlyAll();
    } catch (error) {
      return void stats.violations.push(`order ${id}: ${esim.partner.id} could not use its eSIM ${esim.key} (${(error as Error).message})`);
    }
    a.crossings++;
    // The same measure reported again (a partner's repeated notification), and two pages reading at once (two instances).
    for (let n = 0; n < plan.repeats; n++) {
      await sleep(300);
      again();
      a.repeated++;
    }
    if (plan.race) {
      a.raced++;
      await Promise.all([request('/esims?lang=en', { token: buyer.token }), request('/esims?lang=en', { token: buyer.token }), again()]);
    }

    // Until the buyer sees how it ended, the partner reports the same measure again every few seconds,
    // as its later notifications would: one that reached no instance, or one killed before it read the
    // usage, is then not the last word (the shop reads the usage itself; after the top-up it is below 90 %).
    const ended = (view: AutoTopUpView) => view.charges.some((c) => ENDED_CHARGE.has(c.state));
    let reported = Date.now();
    const seen = await poll(
      async () => {
        if (Date.now() - reported > 3_000) {
          again();
          a.repeated++;
          reported = Date.now();
        }
        return read<AutoTopUpView>(path, buyer.token);
      },
      ended,
      settings.deliveryWaitMs,
    );
    if (!seen || !ended(seen)) return void a.notSeen++;
    if (seen.charges.length > plan.maxCount)
      stats.violations.push(`order ${id}: ${seen.charges.length} automatic top-ups, the buyer allowed ${plan.maxCount}`);
    const charge = seen.charges.find((c) => ENDED_CHARGE.has(c.state))!;
    if (charge.state === 'refunded') return void a.refunded++;
    if (charge.state === 'delivered') {
      a.charged++;
      if (plan.card === 'authenticates')
        stats.violations.push(`order ${id}: automatic top-up ${charge.orderId} charged off-session on a card whose bank always asks`);
      return;
    }
    a.refused++;
    if (plan.card === 'pays')
      return void stats.violations.push(`order ${id}: automatic top-up ${charge.orderId} refused on card 4242, which pays off-session`);
    if (plan.payOnLink) await payOnLink(buyer, id, charge.orderId, path);
  }

  /** The refused top-up paid on-session from the e-mail's link (the bank's authentication done on Stripe's page), then watched. */
  async function payOnLink(buyer: Buyer, esimId: string, orderId: string, path: string) {
    const a = stats.autoTopUps;
    const link = await poll(async () => payLinkIn(buyer.email), Boolean, 20_000);
    if (!link) return void stats.violations.push(`order ${esimId}: no e-mail brought the link to pay refused top-up ${orderId}`);
    const opened = await persist(
      `/auto-top-ups/link/pay?lang=en&token=${encodeURIComponent(link)}`,
      { method: 'POST', token: buyer.token },
      6,
    );
    if (opened.status === 0 || opened.status >= 500) return void a.gaveUp++;
    if (opened.status !== 200)
      return void stats.violations.push(
        `order ${esimId}: the link to pay refused top-up ${orderId} answered ${opened.status} ${errorCode(opened.body) ?? ''}`,
      );
    if (!(await payWithTestCard((opened.body as { url: string }).url, `top-up ${orderId}`, CARDS.authenticates))) return;
    stats.paid++;
    const paidOff = (view: AutoTopUpView) =>
      view.charges.some((c) => c.orderId === orderId && (c.state === 'delivered' || c.state === 'refunded'));
    const seen = await poll(() => read<AutoTopUpView>(path, buyer.token), paidOff, settings.deliveryWaitMs);
    if (seen && paidOff(seen)) a.paidOnLink++;
    else a.notSeen++;
  }

  async function runBuyer(plan: (typeof buyers)[number]) {
    let account: Awaited<ReturnType<typeof signUpOn>> | undefined;
    for (let attempt = 1; !account; attempt++) {
      try {
        account = await Promise.race([
          signUpOn(settings.authHost),
          sleep(20_000).then(() => Promise.reject(new Error('the Auth emulator did not answer a sign-up within 20 s'))),
        ]);
      } catch (error) {
        if (attempt >= 5) throw error;
        await sleep(500);
      }
    }
    stats.buyers++;
    const buyer: Buyer = { uid: account.uid, email: account.email, token: account.idToken, currency: plan.currency };
    for (const [index, purchase] of plan.purchases.entries()) {
      if (settings.stopStartingAt && Date.now() > settings.stopStartingAt) {
        stats.notStarted++;
        continue;
      }
      settings.onOrderStarted?.(++stats.esimOrdersStarted);
      // A cart, unless the operator's block comes at this purchase (its flow is one order's).
      if (purchase.cart && !(index === 0 && plan.block)) {
        await buyCart(buyer, purchase.cart, purchase.doubleClick);
        continue;
      }
      const auto = purchase.intent === 'auto' ? purchase.auto : undefined;
      const expectedPrice = priceIn(purchase.plan.prices, buyer.currency);
      const body: CreateOrderRequest = {
        planId: purchase.plan.pkg.id,
        lang: 'en',
        expectedPrice,
        consents: { terms: true, immediateStart: true },
        // Automatic top-ups ticked at checkout: the payment saves the card.
        ...(auto?.atCheckout && { autoTopUp: autoLimits(auto, expectedPrice.amountMinor) }),
      };
      // The operator's block comes at the buyer's first purchase: on its payment page, or while the paid order is delivered.
      const block = index === 0 ? plan.block : undefined;
      const blockedOnPage = { now: false };
      const id = await buy(
        buyer,
        body,
        'esim',
        purchase.doubleClick,
        block?.onOpenOrder ? (_orderId, checkoutUrl) => ((blockedOnPage.now = true), blockOnPage(buyer, checkoutUrl, block)) : undefined,
        undefined,
        auto && CARDS[auto.card],
      );
      if (blockedOnPage.now) {
        if (await afterBlock(buyer, body, block!)) continue;
        return;
      }
      if (!id) continue;
      stats.paid++;
      const blocking = block ? blockBuyer(buyer, false) : undefined;
      const order = await waitOrder(buyer.token, id, (o) => delivered(o) || FINAL.has(o.state));
      if (blocking) {
        // Blocked while its order was delivered (or, paid but not yet known paid, cancelled and its payment given back).
        await blocking;
        if (await afterBlock(buyer, body, block!)) continue;
        return;
      }
      if (!order || !delivered(order)) {
        stats.notDeliveredInTime++;
        continue;
      }
      stats.deliveredSeen++;
      // The operator's refunds go on beside the buyer's next purchase.
      if (purchase.operator) operatorWork.push(operatorRefunds(id, order.total.amountMinor, purchase.operator));
      if (purchase.intent === 'refund') await requestRefund(buyer, id);
      else if (purchase.outcome?.kind === 'replace') await replaceEsim(buyer, id, purchase.outcome.race);
      else if (purchase.outcome?.kind === 'exchange') await exchangeEsim(buyer, id, purchase.plan, purchase.outcome);
      else if (auto) await autoTopUps(buyer, id, auto, order.total.amountMinor);
      else if (purchase.intent === 'top_up')
        await installAndTopUp(buyer, id, purchase.refundInstalled, purchase.topUpPick, purchase.twoTopUps);
    }
  }

  let nextBuyer = 0;
  await Promise.all(
    Array.from({ length: Math.min(settings.concurrency, buyers.length) }, async () => {
      while (nextBuyer < buyers.length) await runBuyer(buyers[nextBuyer++]!);
    }),
  );
  await Promise.all(operatorWork);
  return stats;
}

import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedSnapshot } from '../../../src/catalogue/snapshot.ts';
import type { Db } from '../../../src/server/db/db.types.ts';
import { migrate } from '../../../src/server/db/migrate.ts';
import { openPostgres } from '../../../src/server/db/postgres.ts';
import { auditDatabase, AUDIT_GRACE_MS, type AuditFinding } from '../../../src/server/orders/audit.ts';
import { sellablePlans } from '../../../src/server/orders/plans.ts';
import { marginHolds, pricingFor } from '../../../src/pricing/pricing.ts';
import { createEsimAccessPartner } from '../../../src/server/partner/esim-access/adapter.ts';
import { createEsimGoPartner } from '../../../src/server/partner/esim-go/adapter.ts';
import { ESIM_GO_BUDGET } from '../../../src/server/partner/esim-go/config.ts';
import { createStripe } from '../../../src/server/payments/stripe.ts';
import { STAND_IN_SECRET_KEY } from '../../../stand-ins/stripe/server.ts';
import { startAuthEmulator } from '../auth-emulator.ts';
import { startPostgres } from '../postgres-server.ts';
import { throwawayAlertEnv } from '../throwaway-alert-keys.ts';
import { runBuyers, type BuyerStats } from './buyers.ts';
import { blockChecks, crossCheck, duplicateEmails, type BlockFigures, type CrossCheck } from './checks.ts';
import {
  esimGoErrorAnswer,
  FAULT_KINDS,
  partnerErrorAnswer,
  startFaultProxy,
  stripeErrorAnswer,
  type FaultCounts,
  type FaultProxyOptions,
} from './fault-proxy.ts';
import { standInEnv } from '../stand-in-env.ts';
import { createFleet } from './fleet.ts';
import { between, seeded } from './random.ts';
import { ESIM_GO } from '../../../src/server/partner/esim-go/config.ts';
import { esimAccessAtRun, esimGoAtRun, recordedOrders } from './partners.ts';
import { startStandIns } from './stand-ins.ts';
import { esimGoStandInEnv } from '../../../stand-ins/esim-go/local.ts';

/**
 * The fault-injection run (issue 20, DESIGN 7: "the fault-injection run proves them"): buyers
 * buy, top up and refund through a round-robin front in front of shop API processes on one real
 * PostgreSQL server, which are killed with SIGKILL at random moments and started again (two of
 * them for the middle half of the run), while fault proxies in front of the Stripe stand-in's API
 * and both partners' (eSIM Access, eSIM Go) lose answers, hold them past the client's timeout and
 * answer 5xx before or after forwarding; eSIM Access is down altogether for a while in the middle
 * (issue 48), when orders go to eSIM Go. Some buyers replace or exchange their eSIM, with refunds racing them
 * (issue 46): a purchase ends in one outcome. Some turn automatic top-ups on (issue 49): the crossing
 * of 10 % left measured again and raced, the off-session charge and the top-up meeting the same
 * faults and kills. Then faults off, every instance up, the reconcile job until nothing
 * is due, and the checks: the order audit and the cross-checks against the stand-ins.
 */
export interface FaultRunOptions {
  /** eSIMs to buy (top-ups come on top). */
  orders: number;
  seed: number;
  /** The share of provider calls that meet a fault. */
  faultRate?: number;
  /** Buyers at work at once. */
  concurrency?: number;
  /** The share of eSIMs installed and topped up (half of them twice at once); default 0.25. */
  topUpShare?: number;
  /** The share of eSIMs to top up that turn automatic top-ups on instead (issue 49); default AUTO_SHARE. */
  autoShare?: number;
  /** Milliseconds from the fleet being whole again (every wanted instance up) to the next kill, at random in this range. */
  killEveryMs?: [number, number];
  /** How long eSIM Access is down, from when 30 % of the orders have started (default 60 s; 0: no outage). */
  outageMs?: number;
  /** When the first kill comes, after the buying starts. */
  firstKillMs?: number;
  /** No purchase starts after this long of buying (a bounded run, for the test); default: all start. */
  buyingMs?: number;
  /** How long the end may take: Stripe's webhooks delivered and the reconcile job until nothing is due. */
  drainTimeoutMs?: number;
  /** The Auth emulator to sign buyers up on (host:port); default: one of its own. */
  authHost?: string;
  /** A PostgreSQL database to use (empty); default: a throwaway server of its own (startPostgres). */
  databaseUrl?: string;
  /** Where the API instances' logs and the e-mails go; default: a new folder under the temp dir. */
  logDir?: string;
  log?: (line: string) => void;
}

export interface FaultRunReport {
  seed: number;
  durationMs: number;
  logDir: string;
  /** stripeOperatorRefunds: the faults met by Stripe refunds asked for an operator's refund (POST /v1/refunds, metadata reason 'operator'). */
  faults: {
    stripe: FaultCounts;
    partner: FaultCounts;
    esimGo: FaultCounts;
    stripeOperatorRefunds: FaultCounts;
    stripeRequests: number;
    partnerRequests: number;
    esimGoRequests: number;
  };
  /** eSIM Access's outage (every connection refused): how long it lasted. */
  outage: { ms: number };
  /** eSIM orders by the partner that delivered them, and those that went to a second partner after a first. */
  partners: { delivered: Record<string, number>; failedOver: number; orphansReleased: number };
  kills: number;
  starts: number;
  /** Front: requests answered, lost with a killed instance, refused with none up. */
  front: { answered: number; lost: number; noneUp: number };
  /** partnerFailedBy: the failed notifications by HTTP status (0: no answer within the partner's 5 s, or no connection). */
  webhooks: {
    stripeEvents: number;
    stripeFailedAttempts: number;
    stripeNeverDelivered: number;
    partnerSent: number;
    partnerFailed: number;
    partnerFailedBy: Record<string, number>;
  };
  buyers: Omit<BuyerStats, 'orders' | 'operatorClicks'>;
  /** Slots of the partner's 8 held by requests of killed instances while buying (each until its lease ran out): most at once, and on average. */
  partnerBudget: { strandedMax: number; strandedMean: number };
  /** Orders by kind and end state. */
  endStates: Record<string, Record<string, number>>;
  /** Automatic top-ups' crossings of 10 % left by how they ended (charged, refused, skipped: why), from the rows (issue 49). */
  crossings: Record<string, number>;
  /** Paid orders by the currency they were paid in. */
  paidIn: Record<string, number>;
  /** Paid eSIMs by their outcome (issue 46), from what happened (a replacement delivered, the refunds), as the audit's one_outcome reads it. */
  outcomes: Record<string, number>;
  drain: { ms: number; settled: boolean; left: string[] };
  audit: { checked: number; findings: AuditFinding[] };
  /** The operator's blocks as the rows tell them (operator_actions, orders). */
  blocks: BlockFigures;
  checks: CrossCheck[];
  duplicateEmails: number;
  /** Everything that failed; empty: the run proved what it should. */
  failures: string[];
  /** The events and partner writes of the orders a failure names (at most 20). */
  histories: Record<string, string[]>;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** Waits for `promise`, at most `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((done) => (timer = setTimeout(done, ms)))]);
  clearTimeout(timer);
}
const PARTNER_ACCOUNT = { accessCode: 'fault-run-access-code', secretKey: 'fault-run-secret-key' };
const PARTNER_WEBHOOK_TOKEN = 'fault-run-partner-webhook-token';
const ESIM_GO_API_KEY = 'fault-run-esim-go-api-key';
/** eSIM Go's orphans (a transaction's answer lost before its label) are looked for every 2 s once 20 s old, not hourly once an hour old. */
const ORPHANS = { everyMs: 2_000, settleMs: 20_000 };
const RECONCILE_TOKEN = 'fault-run-reconcile-token';
/** eSIMs with automatic top-ups on whose usage went unread for 5 s are read again (15 min in production), looked for every 2 s. */
const AUTO_TOP_UP_USAGE = { everyMs: 2_000, maxAgeMs: 5_000 };
/** The shop's timeouts for the run: short, so that a held answer costs seconds. */
const STRIPE_TIMEOUT_MS = 2_000;
const PARTNER_TIMEOUT_MS = 2_000;
const INSTANCES = 2;
/** How often a top-up call meets a fault, whatever the run's rate (see the partner's proxy). */
const TOP_UP_FAULT_RATE = 0.5;
/** How often a call to Stripe's refunds (asked, or read back after a lost answer) meets a fault, whatever the run's rate. */
const REFUND_FAULT_RATE = 0.4;
/** The share of kept eSIMs an operator refunds (a part, then mostly the rest). */
const OPERATOR_SHARE = 0.6;
/** The share of buyers the operator blocks while they buy (at least one); about half of them unblocked later. */
const BLOCK_SHARE = 0.1;
/** The share of kept purchases bought as a cart of one to four eSIMs (issue 33): several orders on one payment under the same faults. */
const CART_SHARE = 0.35;
/**
 * The share of purchases (neither topped up nor in a cart) replaced or exchanged by their buyer
 * (issue 46), with refunds pressed at the same moment or before the exchange is paid: one outcome each.
 */
const OUTCOME_SHARE = 0.3;
/** The share of purchases to top up by hand whose buyer turns automatic top-ups on instead (issue 49). */
const AUTO_SHARE = 0.3;

export async function runFaultRun(options: FaultRunOptions): Promise<FaultRunReport> {
  const started = Date.now();
  const log = options.log ?? ((line: string) => console.log(line));
  const { seed } = options;
  const faultRate = options.faultRate ?? 0.1;
  const logDir = options.logDir ?? join(tmpdir(), `fault-run-${seed}-${Date.now()}`);
  mkdirSync(join(logDir, 'mail'), { recursive: true });
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  const closeAll = async () => {
    for (const step of cleanup.reverse())
      await Promise.resolve()
        .then(step)
        .catch((error: unknown) => log(`cleanup: ${String(error)}`));
  };

  try {
    // The real parts: PostgreSQL, the Auth emulator, and the three stand-ins in this process.
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      const postgres = await startPostgres();
      cleanup.push(() => postgres.stop());
      databaseUrl = postgres.url;
    }
    let authHost = options.authHost;
    if (!authHost) {
      const auth = await startAuthEmulator();
      cleanup.push(() => auth.stop());
      authHost = auth.host;
    }
    const db: Db = await openPostgres(databaseUrl, { max: 4 });
    cleanup.push(() => db.close());
    await migrate(db);

    const {
      smtp,
      front,
      api,
      partner: partnerStandIn,
      esimGo: esimGoStandIn,
      stripe: stripeStandIn,
      serve,
    } = await startStandIns(cleanup, {
      mailDir: join(logDir, 'mail'),
      partner: { ...PARTNER_ACCOUNT, allocationDelayMs: 500 },
      partnerWebhookToken: PARTNER_WEBHOOK_TOKEN,
      // As strict as eSIM Go: 10 requests a second from one address, 429 above.
      esimGo: { apiKey: ESIM_GO_API_KEY, rateLimit: { requests: ESIM_GO_BUDGET.requests, perMs: ESIM_GO_BUDGET.windowMs } },
    });
    if (!esimGoStandIn) throw new Error('the eSIM Go stand-in did not start');

    const slowMs = Math.max(STRIPE_TIMEOUT_MS, PARTNER_TIMEOUT_MS) + 1_000;
    // Each upstream behind its own proxy with its own random stream, faulting only its API's calls.
    const faultyProxy = async (
      name: string,
      upstream: string,
      apiPrefix: string,
      errorAnswer: FaultProxyOptions['errorAnswer'],
      rateFor?: FaultProxyOptions['rateFor'],
      tag?: FaultProxyOptions['tag'],
    ) => {
      const proxy = await startFaultProxy({
        upstream,
        random: seeded(seed, `${name}-faults`),
        rate: faultRate,
        ...(rateFor && { rateFor }),
        ...(tag && { tag }),
        slowMs,
        eligible: (_method, path) => path.startsWith(apiPrefix),
        errorAnswer,
      });
      cleanup.push(() => proxy.close());
      return proxy;
    };
    // Refunds meet faults often (the operator's too, which the proxy counts apart): a lost answer is read back at Stripe.
    const stripeProxy = await faultyProxy(
      'stripe',
      stripeStandIn.url,
      '/v1/',
      stripeErrorAnswer,
      (path) => (path === '/v1/refunds' ? Math.max(faultRate, REFUND_FAULT_RATE) : undefined),
      (method, path, body) =>
        method === 'POST' && path === '/v1/refunds' && new URLSearchParams(body.toString()).get('metadata[reason]') === 'operator'
          ? 'operator_refund'
          : undefined,
    );
    // Top-ups meet faults at least half the time: with two top-ups of one eSIM bought at once, a
    // lost answer while the other is under way is the race that once delivered an unapplied top-up.
    const partnerProxy = await faultyProxy('partner', partnerStandIn.url, '/api/v1/open/', partnerErrorAnswer, (path) =>
      path.endsWith('/esim/topup') ? Math.max(faultRate, TOP_UP_FAULT_RATE) : undefined,
    );
    // eSIM Go's base URL ends in its version path, which the proxy passes on.
    const esimGoUrl = new URL(esimGoStandIn.url);
    const esimGoProxy = await faultyProxy('esim-go', esimGoUrl.origin, esimGoUrl.pathname, esimGoErrorAnswer);

    const instances = createFleet({
      size: INSTANCES,
      logDir,
      env: {
        DATABASE_URL: databaseUrl,
        // Each upstream through its faulty proxy.
        ...standInEnv({
          stripeUrl: stripeProxy.url,
          partnerUrl: partnerProxy.url,
          partner: PARTNER_ACCOUNT,
          partnerWebhookToken: PARTNER_WEBHOOK_TOKEN,
          smtpUrl: smtp.url,
          authHost,
        }),
        ...esimGoStandInEnv(`${esimGoProxy.url}${esimGoUrl.pathname}`, ESIM_GO_API_KEY),
        STRIPE_TIMEOUT_MS: String(STRIPE_TIMEOUT_MS),
        ESIM_ACCESS_TIMEOUT_MS: String(PARTNER_TIMEOUT_MS),
        ESIM_GO_TIMEOUT_MS: String(PARTNER_TIMEOUT_MS),
        MAIL_FROM: 'Travel eSIM <orders@localhost>',
        SITE_URL: 'http://127.0.0.1:4321',
        RECONCILE_TOKEN,
        ...throwawayAlertEnv(),
        FAULT_RUN_API_OPTIONS: JSON.stringify({
          // About a minute of tries before a delivery is given up and refunded; claims that lapse in
          // seconds once their process is killed.
          delivery: {
            retryDelaysMs: [500, 1_000, 2_000, 3_000, 5_000, 5_000, 8_000, 10_000, 10_000, 15_000],
            allocationPollMs: 700,
            leaseMs: 6_000,
          },
          reconcileEveryMs: 1_000,
          // An operator's action killed mid-way may run again after 15 s (5 min in production), within the drain.
          opsActionStaleMs: 15_000,
          // A payment page whose closing at Stripe met a fault (or whose claim died with its
          // instance) is tried again within seconds, not minutes, so the drain sees it closed.
          checkoutExpiryRetry: { delaysMs: [1_000, 2_000, 3_000], claimMs: 6_000 },
          // eSIM Go's orphans looked for soon; a sweep's claim, its instance killed, lapses in 20 s (5 min in production).
          reconcileTiming: { partnerOrphans: ORPHANS, sweepLeaseMs: 20_000, autoTopUpUsage: AUTO_TOP_UP_USAGE },
          // An automatic top-up's run, its instance killed, is taken up after 6 s (2 min in production); a charge not asked, after 1 to 5 s.
          autoTopUpTiming: { leaseMs: 6_000, retryDelaysMs: [1_000, 2_000, 5_000] },
        }),
      },
    });
    serve(instances);
    cleanup.push(() => instances.stopAll());
    await instances.start(0);
    log(`shop API up behind the front at ${api}; logs and e-mails in ${logDir}`);

    // Chaos: SIGKILL at random moments, a restart after a random pause; two instances for the middle half.
    const chaos = seeded(seed, 'chaos');
    const [killMin, killMax] = options.killEveryMs ?? [4_000, 12_000];
    let wanted = 1;
    let stopChaos = false;
    const downUntil = new Array<number>(INSTANCES).fill(0);
    const chaosLoop = (async () => {
      let nextKill: number | undefined = Date.now() + (options.firstKillMs ?? 3_000);
      while (!stopChaos) {
        const now = Date.now();
        for (let i = 0; i < INSTANCES; i++) {
          if (i < wanted && !instances.isUp(i) && now >= downUntil[i]!) {
            instances.start(i).catch((error: unknown) => log(`start api-${i + 1}: ${(error as Error).message}`));
          }
          if (i >= wanted && instances.isUp(i)) await instances.kill(i);
        }
        const up = Array.from({ length: INSTANCES }, (_, i) => i).filter((i) => instances.isUp(i));
        // The next kill is timed from when the fleet is whole again, not from the last kill: on a busy
        // machine an instance takes seconds to start, and kills timed from each other would leave
        // none up for long stretches (a whole outage is what the 'all' kills are for).
        if (nextKill === undefined && up.length >= wanted) nextKill = now + between(chaos, killMin, killMax);
        if (nextKill !== undefined && now >= nextKill && up.length > 0) {
          const all = chaos() < 0.25;
          const victims = all ? up : [up[Math.floor(chaos() * up.length)]!];
          for (const i of victims) {
            await instances.kill(i);
            downUntil[i] = Date.now() + between(chaos, 200, 2_500);
          }
          nextKill = undefined;
        }
        await sleep(150);
      }
    })();

    let progress = 0;
    // The partner budget, sampled every 2 s: slots stranded by killed instances hold back every other.
    const stranded = { samples: 0, total: 0, max: 0 };
    let lastSlots: Awaited<ReturnType<typeof budgetSlots>>;
    const sampler = setInterval(() => {
      void budgetSlots(db).then((slots) => {
        if (!slots) return;
        lastSlots = slots;
        stranded.samples++;
        stranded.total += slots.stranded;
        stranded.max = Math.max(stranded.max, slots.stranded);
      });
    }, 2_000);
    sampler.unref();
    // eSIM Access down for a while once 30 % of the orders have started.
    const outageMs = options.outageMs ?? 60_000;
    const outage = { started: 0, ended: 0, timer: undefined as NodeJS.Timeout | undefined };
    const report = setInterval(() => {
      log(
        `  ${Math.round((Date.now() - started) / 1000)} s: ${progress}/${options.orders} eSIM orders started; ` +
          `instances up ${instances.urls().length}; kills ${instances.kills}; faults stripe ${sum(stripeProxy.counts)} eSIM Access ${sum(partnerProxy.counts)} eSIM Go ${sum(esimGoProxy.counts)}` +
          (outage.started && !outage.ended ? '; eSIM Access DOWN' : '') +
          (lastSlots ? `; partner budget slots held ${lastSlots.held}, ${lastSlots.stranded} of them stranded by killed instances` : ''),
      );
    }, 10_000);
    report.unref();

    // The plans eSIM Go sells at a margin that holds (nearly all of them eSIM Access's too, which is
    // cheaper): each order goes to the cheapest healthy partner, so eSIM Access's outage moves orders to eSIM Go.
    const snapshot = embeddedSnapshot();
    const euros = pricingFor('EUR', snapshot.exchangeRates.applied);
    const plans = [...sellablePlans(snapshot).values()].filter((plan) =>
      plan.pkg.offers.some((o) => o.partner === ESIM_GO && marginHolds(plan.price.amountMinor, o.wholesaleUsdE4, euros)),
    );
    const partners = [
      esimAccessAtRun(partnerStandIn, createEsimAccessPartner({ ...PARTNER_ACCOUNT, baseUrl: partnerStandIn.url })),
      esimGoAtRun(esimGoStandIn, createEsimGoPartner({ apiKey: ESIM_GO_API_KEY, baseUrl: esimGoStandIn.url }), () =>
        recordedOrders(db, ESIM_GO),
      ),
    ];
    const endOutage = async () => {
      clearTimeout(outage.timer);
      if (outage.started && !outage.ended) {
        outage.ended = Date.now();
        await partnerProxy.setDown(false);
        log(`  eSIM Access up again after ${Math.round((outage.ended - outage.started) / 1000)} s`);
      }
    };
    let buyers: BuyerStats;
    try {
      buyers = await runBuyers({
        api,
        authHost,
        partners,
        plans,
        random: seeded(seed, 'buyers'),
        orders: options.orders,
        concurrency: options.concurrency ?? 8,
        refundShare: 0.2,
        topUpShare: options.topUpShare ?? 0.25,
        deliveryWaitMs: 45_000,
        operatorShare: OPERATOR_SHARE,
        operatorRandom: seeded(seed, 'operator'),
        blockShare: BLOCK_SHARE,
        blockRandom: seeded(seed, 'blocks'),
        cartShare: CART_SHARE,
        cartRandom: seeded(seed, 'carts'),
        currencyRandom: seeded(seed, 'currencies'),
        outcomeShare: OUTCOME_SHARE,
        outcomeRandom: seeded(seed, 'outcomes'),
        autoShare: options.autoShare ?? AUTO_SHARE,
        autoRandom: seeded(seed, 'auto-top-ups'),
        mailsTo: (email) => smtp.messages.filter((m) => m.to.includes(email)),
        ...(options.buyingMs && { stopStartingAt: Date.now() + options.buyingMs }),
        onOrderStarted: (n) => {
          progress = n;
          wanted = n > options.orders * 0.25 && n <= options.orders * 0.75 ? 2 : 1;
          if (outageMs > 0 && !outage.started && n >= options.orders * 0.3) {
            void partnerProxy.setDown(true);
            outage.started = Date.now();
            outage.timer = setTimeout(() => void endOutage(), outageMs);
            log(`  eSIM Access DOWN for ${Math.round(outageMs / 1000)} s`);
          }
        },
      });
    } finally {
      stopChaos = true;
      await endOutage();
      await chaosLoop;
      clearInterval(report);
      clearInterval(sampler);
    }
    log(
      `buying done in ${Math.round((Date.now() - started) / 1000)} s: ${buyers.paid} payments, ${instances.kills} kills; faults off, every instance up, draining`,
    );

    // The end: faults off, every instance up, Stripe's webhooks delivered, the reconcile job until nothing is due.
    stripeProxy.enabled = false;
    partnerProxy.enabled = false;
    esimGoProxy.enabled = false;
    const drainStarted = Date.now();
    await Promise.all(Array.from({ length: INSTANCES }, (_, i) => instances.start(i)));
    const drainTimeoutMs = options.drainTimeoutMs ?? 180_000;
    await within(stripeStandIn.settled(), drainTimeoutMs / 2);
    log(`  instances up and Stripe's webhooks delivered after ${Math.round((Date.now() - drainStarted) / 1000)} s; reconciling`);
    let left: string[] = [];
    let settled = false;
    for (let quiet = 0; Date.now() - drainStarted < drainTimeoutMs;) {
      const handled = await fetch(`${api}/jobs/reconcile`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${RECONCILE_TOKEN}` },
        signal: AbortSignal.timeout(30_000),
      })
        .then(async (r) => (r.ok ? ((await r.json()) as { handled: number }).handled : -1))
        .catch(() => -1);
      left = await outstanding(db);
      // eSIM Go's orphans are looked for once ORPHANS.settleMs old: the sweep must have run without a failure since its last order was.
      const lastOrderAt = esimGoStandIn.ordersPlaced().at(-1)?.placedAt.getTime() ?? 0;
      // A run under way counts once it ended: its claim touches updated_at too (the end of the run stops every instance).
      const [orphans] = await db.query<{ at: Date; attempts: number; running: boolean }>(
        `SELECT updated_at AS at, attempts, locked_until > now() AS running FROM jobs WHERE key = 'sweep:partner_orphans'`,
      );
      if (lastOrderAt && (!orphans || orphans.running || orphans.attempts > 0 || orphans.at.getTime() < lastOrderAt + ORPHANS.settleMs))
        left.push(`eSIM Go's orphans not yet looked for since its last order was ${ORPHANS.settleMs / 1000} s old`);
      quiet = handled === 0 && left.length === 0 ? quiet + 1 : 0;
      if (quiet >= 2) {
        settled = true;
        break;
      }
      await sleep(500);
    }
    const drainMs = Date.now() - drainStarted;
    log(`drain ${settled ? 'settled' : 'did NOT settle'} in ${Math.round(drainMs / 1000)} s`);
    // Quiet from here on: no instance changes anything while the checks read.
    await instances.stopAll();

    // The audit, as if its grace for work in flight had passed: nothing may be left in flight.
    const audit = await auditDatabase(db, new Date(Date.now() + AUDIT_GRACE_MS + 60_000));
    const stripe = createStripe({ secretKey: STAND_IN_SECRET_KEY, apiUrl: stripeStandIn.url });
    const blocked = await blockChecks(db);
    const checks = [
      ...(await crossCheck({ db, stripe, stripeStandIn, partners, smtp, operatorClicks: buyers.operatorClicks })),
      ...blocked.checks,
    ];

    const endStates: Record<string, Record<string, number>> = {};
    for (const row of await db.query<{ kind: string; state: string; n: number }>(
      'SELECT kind, state, count(*)::int AS n FROM orders GROUP BY kind, state ORDER BY kind, state',
    )) {
      (endStates[row.kind] ??= {})[row.state] = row.n;
    }
    const crossings: Record<string, number> = {};
    for (const row of await db.query<{ ended: string; n: number }>(
      `SELECT state || coalesce(' ' || why, '') AS ended, count(*)::int AS n FROM auto_top_ups GROUP BY 1 ORDER BY 1`,
    ))
      crossings[row.ended] = row.n;
    // Paid orders by the currency they were paid in (issue 34): each buyer buys in a currency of their own.
    const paidIn: Record<string, number> = {};
    for (const row of await db.query<{ currency: string; n: number }>(
      `SELECT o.currency, count(*)::int AS n FROM orders o WHERE EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status = 'paid')
       GROUP BY o.currency ORDER BY o.currency`,
    )) {
      paidIn[row.currency] = row.n;
    }
    // Each paid eSIM's outcome from what happened: a replacement delivered, a refund as exchanged, another of the buyer's or the shop's.
    const [outcomes] = await db.query<Record<string, number>>(
      `WITH given AS (
         SELECT order_id, bool_or(reason = 'exchanged') AS exchanged, bool_or(reason <> 'exchanged' AND requested_by <> 'operator') AS refunded
         FROM refunds WHERE status <> 'cancelled' GROUP BY order_id
       ), purchases AS (
         SELECT o.id, r.id IS NOT NULL AS replaced, coalesce(g.exchanged, false) AS exchanged, coalesce(g.refunded, false) AS refunded
         FROM orders o
         LEFT JOIN order_links x ON x.of_order_id = o.id AND x.link = 'replacement'
         LEFT JOIN orders r ON r.id = x.order_id AND r.state = 'delivered'
         LEFT JOIN given g ON g.order_id = o.id
         WHERE o.kind = 'esim' AND NOT EXISTS (SELECT 1 FROM order_links y WHERE y.order_id = o.id AND y.link = 'replacement')
           AND EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id AND p.status = 'paid')
       )
       SELECT count(*) FILTER (WHERE NOT (replaced OR exchanged OR refunded))::int AS kept,
         count(*) FILTER (WHERE replaced)::int AS replaced, count(*) FILTER (WHERE exchanged)::int AS exchanged,
         count(*) FILTER (WHERE refunded)::int AS refunded
       FROM purchases`,
    );
    const delivered: Record<string, number> = {};
    for (const row of await db.query<{ partner: string; n: number }>(
      `SELECT s.partner, count(*)::int AS n FROM orders o JOIN order_sourcing s ON s.order_id = o.id
       WHERE o.kind = 'esim' AND o.state = 'delivered' GROUP BY s.partner ORDER BY s.partner`,
    ))
      delivered[row.partner] = row.n;
    const [failedOver] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT order_id FROM partner_writes WHERE call = 'esim/order' GROUP BY order_id HAVING count(DISTINCT partner) > 1) f`,
    );
    const [orphans] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM partner_orphans WHERE outcome = 'released'`);
    const failures = [
      ...(outageMs > 0 && !outage.started ? ['eSIM Access was never down: too few orders started'] : []),
      ...(settled ? [] : [`the reconcile job did not settle within ${Math.round(drainTimeoutMs / 1000)} s: ${left.join('; ')}`]),
      ...audit.findings.map((f) => `audit ${f.invariant}: ${f.orderNumber ?? '-'} ${f.state ?? '-'} ${f.detail}`),
      ...checks.flatMap((c) => c.breaches.map((b) => `${c.name}: ${b}`)),
      ...buyers.violations.map((v) => `buyer: ${v}`),
    ];
    // What happened to each order concerned, for whoever reads the failure.
    const concerned = new Set<string>(
      failures.flatMap((f) => f.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? []),
    );
    for (const f of audit.findings) if (f.orderId) concerned.add(f.orderId);
    for (const row of await db.query<{ order_id: string }>(`SELECT DISTINCT order_id FROM partner_writes WHERE outcome = 'sent'`))
      concerned.add(row.order_id);
    const histories = await orderHistories(db, [...concerned].slice(0, 20));
    const { orders: _orders, operatorClicks: _clicks, ...buyerFigures } = buyers;
    return {
      seed,
      durationMs: Date.now() - started,
      logDir,
      faults: {
        stripe: { ...stripeProxy.counts },
        partner: { ...partnerProxy.counts },
        esimGo: { ...esimGoProxy.counts },
        stripeOperatorRefunds: { ...(stripeProxy.countsByTag['operator_refund'] ?? noFaults()) },
        stripeRequests: stripeProxy.requests,
        partnerRequests: partnerProxy.requests,
        esimGoRequests: esimGoProxy.requests,
      },
      outage: { ms: outage.ended - outage.started },
      partners: { delivered, failedOver: failedOver!.n, orphansReleased: orphans!.n },
      kills: instances.kills,
      starts: instances.starts,
      front: { ...front.counts },
      webhooks: {
        stripeEvents: stripeStandIn.events.length,
        stripeFailedAttempts: stripeStandIn.events.reduce(
          (n, e) => n + e.attempts.filter((a) => a.status === null || a.status >= 300).length,
          0,
        ),
        stripeNeverDelivered: stripeStandIn.events.filter((e) => !e.delivered).length,
        partnerSent: partnerStandIn.notifications.length,
        partnerFailed: partnerStandIn.notifications.filter((n) => n.status === null || n.status === 0 || n.status >= 300).length,
        partnerFailedBy: Object.fromEntries(
          Object.entries(
            Object.groupBy(
              partnerStandIn.notifications.filter((n) => n.status === null || n.status === 0 || n.status >= 300),
              (n) => String(n.status ?? 0),
            ),
          ).map(([status, list]) => [status, list!.length]),
        ),
      },
      buyers: buyerFigures,
      partnerBudget: {
        strandedMax: stranded.max,
        strandedMean: stranded.samples ? Math.round((stranded.total / stranded.samples) * 10) / 10 : 0,
      },
      endStates,
      crossings,
      paidIn,
      outcomes: outcomes!,
      drain: { ms: drainMs, settled, left },
      audit,
      blocks: blocked.figures,
      checks,
      duplicateEmails: duplicateEmails(smtp),
      failures,
      histories,
    };
  } finally {
    await closeAll();
  }
}

const sum = (counts: FaultCounts) => FAULT_KINDS.reduce((n, kind) => n + counts[kind], 0);
const noFaults = () => Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as FaultCounts;

/** Each order's events and partner writes, in time order, one line each. */
async function orderHistories(db: Db, ids: string[]): Promise<Record<string, string[]>> {
  const histories: Record<string, string[]> = {};
  for (const id of ids) {
    const rows = await db.query<{ at: Date; line: string }>(
      `SELECT at, coalesce(from_state, '-') || ' -> ' || to_state || '  (' || cause || ')' AS line FROM order_events WHERE order_id = $1
       UNION ALL
       SELECT sent_at, 'partner write ' || id || ' ' || call || ' sent' FROM partner_writes WHERE order_id = $1
       UNION ALL
       SELECT settled_at, 'partner write ' || id || ' ' || call || ' ' || outcome || ' (' || coalesce(detail, '') || ')' FROM partner_writes WHERE order_id = $1 AND settled_at IS NOT NULL
       ORDER BY 1`,
      [id],
    );
    const [esim] = await db.query<{ line: string }>(
      `SELECT 'eSIM ' || esim_tran_no || ' ' || status || ', updated ' || updated_at::text AS line FROM esims WHERE order_id = $1`,
      [id],
    );
    histories[id] = [...rows.map((r) => `${new Date(r.at).toISOString().slice(11, 23)}  ${r.line}`), ...(esim ? [esim.line] : [])];
  }
  return histories;
}

/**
 * The partner budget's slots (src/server/partner/partner-budget.ts) held now, and how many of them
 * are stranded: taken more than 10 s ago and never ended, which no request of this run does (2 s
 * time-outs) unless its process was killed; such a slot is freed only when its lease runs out.
 */
async function budgetSlots(db: Db): Promise<{ held: number; stranded: number } | undefined> {
  const rows = await db
    .query<{ held: number; stranded: number }>(
      `SELECT count(*)::int AS held, (count(*) FILTER (WHERE ended_at IS NULL AND taken_at < clock_timestamp() - interval '10 seconds'))::int AS stranded
       FROM partner_budget_slots WHERE held_until > clock_timestamp()`,
    )
    .catch(() => undefined);
  return rows?.[0];
}

/** Work the reconcile job still owes, whatever its schedule or claims say. */
async function outstanding(db: Db): Promise<string[]> {
  const rows = await db.query<{ what: string; n: number }>(`
    SELECT 'order ' || state AS what, count(*)::int AS n
    FROM orders WHERE state IN ('paid', 'provisioning', 'fulfilment_failed', 'refund_requested') GROUP BY 1
    UNION ALL
    SELECT 'order ' || kind || ' e-mail owed', count(*)::int FROM email_outbox WHERE sent_at IS NULL GROUP BY kind
    UNION ALL
    SELECT 'job ' || kind || ' ' || state, count(*)::int FROM jobs WHERE kind <> 'sweep' GROUP BY kind, state
    UNION ALL
    SELECT 'partner write ' || call || ' unsettled', count(*)::int FROM partner_writes WHERE outcome = 'sent' GROUP BY call
    UNION ALL
    SELECT 'automatic top-up ' || state, count(*)::int FROM auto_top_ups WHERE state IN ('due', 'charging') GROUP BY state`);
  const expiries = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM checkout_expiries`).catch(() => [{ n: 0 }]);
  if (expiries[0]!.n > 0) rows.push({ what: 'payment page not yet closed at Stripe', n: expiries[0]!.n });
  return rows.map((r) => `${r.n} ${r.what}`);
}

/** The report as lines: the seed, faults, kills, orders, top-ups, refunds, the audit and the checks. */
export function reportLines(r: FaultRunReport): string[] {
  const counts = (c: FaultCounts) => FAULT_KINDS.map((kind) => `${kind} ${c[kind]}`).join(', ');
  const states = (kind: string) =>
    Object.entries(r.endStates[kind] ?? {})
      .map(([state, n]) => `${state} ${n}`)
      .join(', ') || 'none';
  const b = r.buyers;
  const lines = [
    `seed ${r.seed} (replay its choices: npm run faults -- --seed ${r.seed})`,
    `duration ${Math.round(r.durationMs / 1000)} s; logs and e-mails in ${r.logDir}`,
    `faults injected, Stripe API (${r.faults.stripeRequests} requests): ${counts(r.faults.stripe)}`,
    `faults injected, eSIM Access (${r.faults.partnerRequests} requests): ${counts(r.faults.partner)}`,
    `faults injected, eSIM Go (${r.faults.esimGoRequests} requests): ${counts(r.faults.esimGo)}`,
    `eSIM Access down (every connection refused) for ${Math.round(r.outage.ms / 1000)} s`,
    `eSIM orders delivered by partner: ${
      Object.entries(r.partners.delivered)
        .map(([partner, n]) => `${partner} ${n}`)
        .join(', ') || 'none'
    }; ordered from a second partner after the first: ${r.partners.failedOver}; eSIMs bought by a lost answer and released (orphans): ${r.partners.orphansReleased}`,
    `API instances: ${r.kills} killed with SIGKILL, ${r.starts} started; front: ${r.front.answered} answered, ${r.front.lost} lost with a killed instance, ${r.front.noneUp} with none up`,
    `partner budget: up to ${r.partnerBudget.strandedMax} of its 8 slots (${r.partnerBudget.strandedMean} on average) held by requests of killed instances until their lease ran out`,
    `webhooks: Stripe ${r.webhooks.stripeEvents} events, ${r.webhooks.stripeFailedAttempts} failed attempts retried, ${r.webhooks.stripeNeverDelivered} given up by the stand-in (its retries span about 5 minutes here); partner ${r.webhooks.partnerSent} notifications, ${r.webhooks.partnerFailed} not answered 2xx (not retried; by status: ${
      Object.entries(r.webhooks.partnerFailedBy)
        .map(([s, n]) => `${s} ${n}`)
        .join(', ') || 'none'
    })`,
    `buyers: ${b.buyers}; eSIM orders started ${b.esimOrdersStarted}${b.notStarted ? ` (${b.notStarted} not started: time over)` : ''}, payments ${b.paid}, seen delivered by the buyer in time ${b.deliveredSeen} (not in time ${b.notDeliveredInTime}), gave up ${b.gaveUp}, double clicks ${b.doubleClicks}`,
    `carts: ${b.carts.paid} paid with ${b.carts.esims} eSIMs in all (${b.carts.travellers} for named travellers), double clicks of Buy all that found the same cart ${b.carts.sameOnDoubleClick}`,
    `top-ups: ordered ${b.topUps.ordered}, paid ${b.topUps.paid}, seen delivered ${b.topUps.deliveredSeen}, install not seen in time ${b.topUps.installNotSeen}, refused ${b.topUps.refused}, two at once on one eSIM ${b.topUps.twoAtOnce}`,
    `refunds: requested ${b.refunds.requested}, accepted ${b.refunds.accepted}, found under way on a retry after a lost answer ${b.refunds.underWayOnRetry}, partner unavailable ${b.refunds.unavailable}; refund of an installed eSIM tried ${b.installedRefundAttempts}`,
    `replacements: asked ${b.replacements.asked}, replaced ${b.replacements.replaced}, refused ${b.replacements.refused}, no answer in the end ${b.replacements.unavailable}, deletion before data not shown in time ${b.replacements.deleteNotSeen}, new eSIM seen delivered ${b.replacements.deliveredSeen}`,
    `exchanges: opened ${b.exchanges.opened}, paid ${b.exchanges.paid}, new eSIM seen delivered ${b.exchanges.deliveredSeen}, refused ${b.exchanges.refused}; before paying, on the first eSIM: Replace ${b.exchanges.replaceFirst}, Refund ${b.exchanges.refundFirst}, both at once ${b.exchanges.bothFirst}; Replace just after paying ${b.exchanges.replaceAfterPaying}`,
    `outcomes by the rows: ${Object.entries(r.outcomes)
      .map(([outcome, n]) => `${outcome} ${n}`)
      .join(', ')}`,
    `automatic top-ups: turned on for ${b.autoTopUps.esims} eSIMs (${b.autoTopUps.atCheckout} at checkout, ${b.autoTopUps.fromMyEsims} in My eSIMs with ${b.autoTopUps.cardsSaved} cards saved on Stripe's page; card not seen saved in time ${b.autoTopUps.cardNotSeen}; no top-up offered ${b.autoTopUps.noTopUps}); crossings of 10 % left ${b.autoTopUps.crossings}, measured again ${b.autoTopUps.repeated}, read by two pages at once ${b.autoTopUps.raced}; seen by the buyer: charged and applied ${b.autoTopUps.charged}, refunded ${b.autoTopUps.refunded}, refused by the bank ${b.autoTopUps.refused} (paid from the e-mail's link ${b.autoTopUps.paidOnLink}), not seen in time ${b.autoTopUps.notSeen}, given up ${b.autoTopUps.gaveUp}`,
    `races (Refund and Replace pressed at the same moment): ${b.races.pressed}, refund accepted ${b.races.refundWon}, replacement accepted ${b.races.replaceWon}, neither ${b.races.neither}`,
    `operator refunds (back office, admin): ${b.operator.orders} orders, ${b.operator.clicks} clicks (${b.operator.partial} partial, ${b.operator.rest} the rest), double clicks ${b.operator.doubleClicks}, answers lost to the operator and asked again with the same key ${b.operator.answersLost}, 'under way' answers waited out ${b.operator.underWay}, refused ${b.operator.refused}`,
    `faults met by Stripe refunds asked for an operator: ${counts(r.faults.stripeOperatorRefunds)} (answers lost to the shop: ${r.faults.stripeOperatorRefunds.lost_answer + r.faults.stripeOperatorRefunds.slow_answer + r.faults.stripeOperatorRefunds.error_after})`,
    `blocks (back office, admin): ${b.blocks.buyers} buyers blocked while at work (${b.blocks.onOpenOrder} on an open order before paying), ${b.blocks.unblocks} unblocked and signed in again; refusals 403 account_blocked seen ${b.blocks.refusals}; held payment page tried after the block: refused ${b.blocks.pageRefused}, took the card ${b.blocks.pageTookMoney}; answers lost and asked again with the same key ${b.blocks.answersLost}, 'under way' waited out ${b.blocks.underWay}`,
    `blocks by the rows: ${r.blocks.blocks} blocks and ${r.blocks.unblocks} unblocks of ${r.blocks.accounts} accounts; orders open at a block ${r.blocks.openAtBlock}: ${r.blocks.openCancelled} cancelled, ${r.blocks.openPaidMeanwhile} paid meanwhile (delivered or refunded)`,
    `end states, eSIM orders: ${states('esim')}`,
    `end states, top-ups: ${states('top_up')}`,
    `end states, automatic top-ups: ${states('auto')}; their crossings of 10 % left: ${
      Object.entries(r.crossings)
        .map(([ended, n]) => `${ended} ${n}`)
        .join(', ') || 'none'
    }`,
    `paid in: ${Object.entries(r.paidIn)
      .map(([currency, n]) => `${currency} ${n}`)
      .join(', ')}`,
    `drain: ${r.drain.settled ? 'settled' : 'NOT settled'} in ${Math.round(r.drain.ms / 1000)} s${r.drain.left.length ? ` (left: ${r.drain.left.join('; ')})` : ''}`,
    `audit: ${r.audit.findings.length === 0 ? `nothing found (${r.audit.checked} orders checked)` : `${r.audit.findings.length} findings in ${r.audit.checked} orders`}`,
    ...r.checks.map((c) => `check ${c.name}: ${c.breaches.length === 0 ? 'ok' : `${c.breaches.length} BREACHES`} (${c.description})`),
    `e-mails received twice for one order (at-least-once, not money): ${r.duplicateEmails}`,
  ];
  if (r.failures.length > 0) {
    lines.push('', `FAILED: ${r.failures.length}`, ...r.failures.map((f) => `  ${f}`));
    for (const [id, history] of Object.entries(r.histories)) lines.push('', `order ${id}:`, ...history.map((h) => `  ${h}`));
  } else lines.push('', 'PASSED: every check holds');
  return lines;
}

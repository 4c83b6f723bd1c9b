import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EsimView, OrderView } from '../../src/contract/shop-api.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { migrate } from '../../src/server/db/migrate.ts';
import { openPostgres } from '../../src/server/db/postgres.ts';
import { auditDatabase } from '../../src/server/orders/audit.ts';
import { sellablePlans } from '../../src/server/orders/plans.ts';
import { ESIM_ACCESS_BUDGET } from '../../src/server/partner/partner-budget.ts';
import { ESIM_ACCESS_REQUESTS_PER_DELIVERY } from '../../src/server/partner/esim-access/config.ts';
import { ESIM_GO_BUDGET } from '../../src/server/partner/esim-go/config.ts';
import { ESIM_ACCESS } from '../../src/server/partner/registry.ts';
import { ESIM_GO } from '../../src/server/partner/esim-go/config.ts';
import type { RecordedRequest } from '../../stand-ins/esim-access/server.ts';
import { signUpOn, startAuthEmulator } from './auth-emulator.ts';
import { createFleet } from './fault-run/fleet.ts';
import { startStandIns } from './fault-run/stand-ins.ts';
import { startPostgres } from './postgres-server.ts';
import { standInEnv } from './stand-in-env.ts';
import { percentile } from './shop-bench.ts';
import { throwawayAlertEnv } from './throwaway-alert-keys.ts';
import { esimGoStandInEnv } from '../../stand-ins/esim-go/local.ts';

/**
 * Issue 31's sale-day rush: `orders` paid orders arriving evenly over `seconds` through a front to
 * two API instances (processes, production delivery settings) on one real PostgreSQL, the partner
 * stand-in enforcing eSIM Access's 8 requests a second (answering 429 above it) and allocating 1 s
 * after each order, while some buyers open My eSIMs (usage reads) and some ask for refunds. The
 * partner's limit, not our API, is the ceiling: a delivery needs at least 2 calls (esim/order,
 * then esim/query once the partner says the profile is allocated), so 500 orders need 125 s of the
 * partner's time at best. Measured: calls per delivery, the share of the 8 a second used while
 * deliveries wait, 429s, which kind of call the partner served while deliveries waited, each
 * buyer's time from payment to QR against the ideal schedule, and the audit at the end.
 *
 * With `partners: 2` (issue 48), eSIM Go's stand-in beside it at its 10 requests a second (429
 * above it): the shop spreads the rush over both (partner-choice.ts). The same figures, with each
 * partner's share: deliveries, calls per delivery, its budget used while deliveries wait, 429s.
 */
export interface RushFigures {
  orders: number;
  arrivalSeconds: number;
  /** The partners the shop ran with: 1 (eSIM Access) or 2 (and eSIM Go). */
  partnerCount: number;
  delivered: number;
  /** Each partner's part of the rush. */
  partners: PartnerRushFigures[];
  /** eSIM Access's calls made for deliveries (esim/order and the esim/query of an order) per eSIM it delivered; the minimum is 2. */
  callsPerDelivery: number;
  /** The partner's time the deliveries need at best: orders × 2 calls ÷ 8 a second. */
  ceilingSeconds: number;
  /** From the first payment to the last QR code. */
  lastDeliverySeconds: number;
  /** lastDeliverySeconds ÷ ceilingSeconds (1 is the partner's limit itself). */
  ceilingRatio: number;
  /** Partner requests in the backlog (from 1 s after the first payment to the last delivery) ÷ (8 a second × its length). */
  budgetShareUsed: number;
  partner429s: number;
  /** The partner's calls during the backlog, by what they were for. */
  backlogCalls: { delivery: number; refund: number; usage: number; other: number };
  /** Payment to QR for each buyer, and the same on the ideal schedule (each delivery as early as the partner's limit allows). */
  paymentToQr: { p50Ms: number; p95Ms: number; maxMs: number };
  idealPaymentToQr: { p50Ms: number; p95Ms: number; maxMs: number };
  /** Actual minus ideal, per buyer. */
  lateness: { p50Ms: number; p95Ms: number; maxMs: number };
  /**
   * Refunds asked after delivery: accepted, then refunded; how often a buyer was told to try again
   * (503: the partner's budget went to deliveries) and asked again, and how long each answer took.
   */
  refunds: { asked: number; refunded: number; askedAgain: number; answerMs: { p50Ms: number; p95Ms: number; maxMs: number } };
  usageReads: { asked: number; p95Ms: number };
  auditFindings: number;
  /** The 1-minute load average at the start and the end. */
  load: { start: number; end: number };
}

export interface PartnerRushFigures {
  id: string;
  /** Orders it delivered. */
  delivered: number;
  /** Its requests that were answered (not 429) per eSIM it delivered, refunds' and usage reads' included. */
  requestsPerDelivery: number;
  /** Its requests in the backlog ÷ (its requests a second × the backlog's length). */
  budgetShareUsed: number;
  partner429s: number;
}

const PARTNER_ACCOUNT = { accessCode: 'rush-access-code', secretKey: 'rush-secret-key' };
const ESIM_GO_API_KEY = 'rush-esim-go-api-key';
const PARTNER_WEBHOOK_TOKEN = 'rush-partner-webhook-token';
const ALLOCATION_DELAY_MS = 1_000;
const RUSH_PLAN = 'es-1gb-7d';
/** The fewest partner calls a delivery can make (see above). */
const MIN_CALLS_PER_DELIVERY = ESIM_ACCESS_REQUESTS_PER_DELIVERY.order + ESIM_ACCESS_REQUESTS_PER_DELIVERY.read;
/** A buyer told to try again asks again this much later, at most this often (within the 5 refund requests a minute). */
const REFUND_ASK_AGAIN_MS = 15_000;
const REFUND_ASKS = 12;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, Math.max(0, ms)));

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: Math.round(percentile(sorted, 50)), p95Ms: Math.round(percentile(sorted, 95)), maxMs: Math.round(sorted.at(-1) ?? NaN) };
};

/** What a partner request was for: a delivery's order or its query by order number, a refund's cancel, a usage read. */
function purposeOf(request: RecordedRequest): keyof RushFigures['backlogCalls'] {
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (request.call === 'esim/order') return 'delivery';
  if (request.call === 'esim/query' && body.orderNo) return 'delivery';
  if (request.call === 'esim/cancel' || request.call === 'esim/revoke') return 'refund';
  if (request.call === 'esim/usage/query' || request.call === 'esim/query') return 'usage';
  return 'other';
}

export async function benchRush(settings: {
  orders: number;
  seconds: number;
  refundShare?: number;
  usageShare?: number;
  /** 1: eSIM Access alone (issue 31); 2: eSIM Go beside it (issue 48). */
  partners?: 1 | 2;
}): Promise<RushFigures> {
  const { orders, seconds } = settings;
  const partnerCount = settings.partners ?? 1;
  const refundShare = settings.refundShare ?? 0.05;
  const usageShare = settings.usageShare ?? 0.3;
  const load = { start: loadavg()[0]!, end: 0 };
  const logDir = mkdtempSync(join(tmpdir(), 'rush-'));
  const cleanup: (() => unknown)[] = [];
  try {
    const postgres = await startPostgres();
    cleanup.push(() => postgres.stop());
    const auth = await startAuthEmulator();
    cleanup.push(() => auth.stop());
    const db = await openPostgres(postgres.url, { max: 2 });
    cleanup.push(() => db.close());
    await migrate(db);

    const { smtp, api, partner, esimGo, stripe, serve } = await startStandIns(cleanup, {
      mailDir: join(logDir, 'mail'),
      // eSIM Access's own limit, enforced: more than 8 in any second answers 429.
      partner: {
        ...PARTNER_ACCOUNT,
        allocationDelayMs: ALLOCATION_DELAY_MS,
        rateLimit: { requests: ESIM_ACCESS_BUDGET.requests, perMs: ESIM_ACCESS_BUDGET.windowMs },
      },
      partnerWebhookToken: PARTNER_WEBHOOK_TOKEN,
      // eSIM Go's own limit, enforced the same way (its stand-in's default bundles price the plan as the catalogue does).
      ...(partnerCount === 2 && {
        esimGo: { apiKey: ESIM_GO_API_KEY, rateLimit: { requests: ESIM_GO_BUDGET.requests, perMs: ESIM_GO_BUDGET.windowMs } },
      }),
    });
    const instances = createFleet({
      size: 2,
      logDir,
      env: {
        DATABASE_URL: postgres.url,
        ...standInEnv({
          stripeUrl: stripe.url,
          partnerUrl: partner.url,
          partner: PARTNER_ACCOUNT,
          partnerWebhookToken: PARTNER_WEBHOOK_TOKEN,
          smtpUrl: smtp.url,
          authHost: auth.host,
        }),
        ...(esimGo && esimGoStandInEnv(esimGo.url, ESIM_GO_API_KEY)),
        MAIL_FROM: 'Travel eSIM <orders@localhost>',
        SITE_URL: 'http://127.0.0.1:4321',
        ...throwawayAlertEnv(),
        // The production delivery settings: nothing overridden.
        FAULT_RUN_API_OPTIONS: '{}',
      },
    });
    serve(instances);
    cleanup.push(() => instances.stopAll());
    await Promise.all([instances.start(0), instances.start(1)]);

    // The buyers' accounts first (not part of the rush), 20 at a time.
    console.log(`rush: signing up ${orders} buyers ...`);
    const buyers: { token: string }[] = [];
    for (let i = 0; i < orders; i += 20)
      buyers.push(
        ...(
          await Promise.all(Array.from({ length: Math.min(20, orders - i) }, () => signUpOn(auth.host, undefined, { emailVerified: true })))
        ).map((account) => ({ token: account.idToken })),
      );
    // A plan both partners sell with their margins holding (eSIM Access the cheaper): the same in both rushes.
    const plan = sellablePlans(embeddedSnapshot()).get(RUSH_PLAN)!;
    const call = async <T>(path: string, token: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> => {
      const response = await fetch(`${api}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(60_000),
      });
      return { status: response.status, body: (await response.json()) as T };
    };

    const paidAt: number[] = [];
    const qrAt: number[] = [];
    const usageTimes: number[] = [];
    const refunds = { asked: 0, refunded: 0, askedAgain: 0 };
    const refundAnswerTimes: number[] = [];
    const refundIds: { id: string; token: string }[] = [];
    const failures: string[] = [];
    const startedAt = Date.now();
    console.log(
      `rush: ${orders} orders over ${seconds} s, eSIM Access at ${ESIM_ACCESS_BUDGET.requests} requests a second` +
        (esimGo ? `, eSIM Go at ${ESIM_GO_BUDGET.requests}` : '') +
        ' ...',
    );

    async function buyer(index: number) {
      await sleep(startedAt + (index * seconds * 1000) / orders - Date.now());
      const { token } = buyers[index]!;
      const placed = await call<{ order: OrderView; checkoutUrl: string }>('/orders', token, 'POST', {
        planId: plan.pkg.id,
        lang: 'en',
        expectedPrice: plan.price,
        consents: { terms: true, immediateStart: true },
      });
      if (placed.status !== 201) return void failures.push(`POST /orders answered ${placed.status}`);
      const paid = await fetch(placed.body.checkoutUrl, {
        method: 'POST',
        body: new URLSearchParams({ action: 'pay', card: '4242424242424242' }),
        redirect: 'manual',
      });
      if (paid.status !== 303) return void failures.push(`the payment page answered ${paid.status}`);
      paidAt[index] = Date.now();
      // The success page's long-poll, until the QR code is there.
      const id = placed.body.order.id;
      for (;;) {
        const answer = await call<OrderView>(`/orders/${id}?lang=en&waitMs=25000`, token).catch(() => undefined);
        if (answer?.status === 200 && answer.body.esim?.install) break;
        if (answer && answer.status !== 200 && answer.status !== 429)
          return void failures.push(`GET /orders/{id} answered ${answer.status}`);
        if (answer?.status === 200 && ['fulfilment_failed', 'refunded', 'cancelled'].includes(answer.body.state))
          return void failures.push(`order ${id} ended ${answer.body.state}`);
        if (answer?.status === 429) await sleep(500);
      }
      qrAt[index] = Date.now();
      // Afterwards, as travellers do: some open My eSIMs (a usage read), some ask for their money back.
      const roll = (index * 0.618_033_988_75) % 1;
      if (roll < refundShare) {
        refunds.asked++;
        for (let ask = 1; ; ask++) {
          const asked = Date.now();
          const refund = await call<EsimView>(`/esims/${placed.body.order.esimId}/refund?lang=en`, token, 'POST');
          refundAnswerTimes.push(Date.now() - asked);
          if (refund.status === 200) {
            refundIds.push({ id, token });
            break;
          }
          // "The eSIM provider could not be reached. Please try again.": a buyer does, a little later.
          if (refund.status !== 503 || ask === REFUND_ASKS) {
            failures.push(`refund answered ${refund.status}`);
            break;
          }
          refunds.askedAgain++;
          await sleep(REFUND_ASK_AGAIN_MS);
        }
      } else if (roll < refundShare + usageShare) {
        const asked = Date.now();
        const esims = await call<EsimView[]>('/esims?lang=en', token);
        usageTimes.push(Date.now() - asked);
        if (esims.status !== 200) failures.push(`GET /esims answered ${esims.status}`);
      }
    }
    await Promise.all(Array.from({ length: orders }, (_, index) => buyer(index)));
    // The refunds settle (Stripe's, then the order's state).
    for (const { id, token } of refundIds) {
      for (let tries = 0; tries < 60; tries++) {
        const order = await call<OrderView>(`/orders/${id}?lang=en`, token);
        if (order.body.state === 'refunded') {
          refunds.refunded++;
          break;
        }
        await sleep(1_000);
      }
    }
    load.end = loadavg()[0]!;

    // The figures, from the partner's own record of what it was asked.
    const requests = partner.requests;
    const deliveries = qrAt.filter(Boolean).length;
    const firstPaid = Math.min(...paidAt.filter(Boolean));
    const lastQr = Math.max(...qrAt.filter(Boolean));
    const backlogStart = firstPaid + ALLOCATION_DELAY_MS;
    const inBacklog = requests.filter((r) => r.receivedAt >= backlogStart && r.receivedAt <= lastQr);
    const backlogCalls = { delivery: 0, refund: 0, usage: 0, other: 0 };
    for (const request of inBacklog) backlogCalls[purposeOf(request)]++;
    const deliveryCalls = requests.filter((r) => r.status !== 429 && purposeOf(r) === 'delivery').length;
    const deliveredBy = Object.fromEntries(
      (await db.query<{ partner: string; n: number }>('SELECT partner, count(*)::int AS n FROM esims GROUP BY partner')).map((r) => [
        r.partner,
        r.n,
      ]),
    );
    const backlog = { start: backlogStart, end: lastQr };
    const partners = [
      partnerFigures(ESIM_ACCESS, requests, ESIM_ACCESS_BUDGET.requests, deliveredBy[ESIM_ACCESS] ?? 0, backlog),
      ...(esimGo ? [partnerFigures(ESIM_GO, esimGo.requests, ESIM_GO_BUDGET.requests, deliveredBy[ESIM_GO] ?? 0, backlog)] : []),
    ];
    // Deliveries a second at the partners' limits: eSIM Access's at its fewest calls, eSIM Go's at those it made.
    const deliveriesPerSecond =
      ESIM_ACCESS_BUDGET.requests / MIN_CALLS_PER_DELIVERY +
      (partners[1] ? ESIM_GO_BUDGET.requests / Math.max(MIN_CALLS_PER_DELIVERY, partners[1].requestsPerDelivery) : 0);
    const ceilingSeconds = orders / deliveriesPerSecond;
    const lastDeliverySeconds = (lastQr - firstPaid) / 1000;
    // The ideal schedule: in order of payment, each delivery's second call no earlier than its
    // allocation, nor than the partner's limit lets the calls before it go.
    const byPayment = paidAt
      .map((at, index) => ({ at, qr: qrAt[index] }))
      .filter((x): x is { at: number; qr: number } => x.at !== undefined && x.qr !== undefined)
      .sort((a, b) => a.at - b.at);
    const ideal = byPayment.map(({ at }, k) => Math.max(at + ALLOCATION_DELAY_MS, firstPaid + ((k + 1) * 1000) / deliveriesPerSecond) - at);
    const actual = byPayment.map(({ at, qr }) => qr - at);
    const audit = await auditDatabase(db);
    if (failures.length > 0) console.log(`rush: ${failures.length} buyers failed, e.g. ${[...new Set(failures)].slice(0, 5).join('; ')}`);
    return {
      orders,
      arrivalSeconds: seconds,
      partnerCount,
      delivered: deliveries,
      partners,
      callsPerDelivery: deliveryCalls / Math.max(1, partners[0]!.delivered),
      ceilingSeconds,
      lastDeliverySeconds,
      ceilingRatio: lastDeliverySeconds / ceilingSeconds,
      budgetShareUsed: inBacklog.length / ((ESIM_ACCESS_BUDGET.requests * (lastQr - backlogStart)) / 1000),
      partner429s: requests.filter((r) => r.status === 429).length,
      backlogCalls,
      paymentToQr: summary(actual),
      idealPaymentToQr: summary(ideal),
      lateness: summary(actual.map((value, k) => value - ideal[k]!)),
      refunds: { ...refunds, answerMs: summary(refundAnswerTimes) },
      usageReads: { asked: usageTimes.length, p95Ms: summary(usageTimes).p95Ms },
      auditFindings: audit.findings.length,
      load,
    };
  } finally {
    for (const step of cleanup.reverse())
      await Promise.resolve()
        .then(step)
        .catch(() => undefined);
    rmSync(logDir, { recursive: true, force: true });
  }
}

/** One partner's part of the rush, from its stand-in's record of what it was asked. */
function partnerFigures(
  id: string,
  requests: readonly { receivedAt: number; status: number }[],
  perSecond: number,
  delivered: number,
  backlog: { start: number; end: number },
): PartnerRushFigures {
  const inBacklog = requests.filter((r) => r.receivedAt >= backlog.start && r.receivedAt <= backlog.end).length;
  return {
    id,
    delivered,
    requestsPerDelivery: requests.filter((r) => r.status !== 429).length / Math.max(1, delivered),
    budgetShareUsed: inBacklog / ((perSecond * (backlog.end - backlog.start)) / 1000),
    partner429s: requests.filter((r) => r.status === 429).length,
  };
}

/** The rush's figures as lines, with the goals beside them. */
export function rushReport(f: RushFigures): string[] {
  const ms = (s: { p50Ms: number; p95Ms: number; maxMs: number }) => `p50 ${s.p50Ms} ms, p95 ${s.p95Ms} ms, max ${s.maxMs} ms`;
  return [
    `Sale-day rush: ${f.orders} paid orders over ${f.arrivalSeconds} s, two API instances, ${f.partnerCount === 2 ? 'eSIM Access at 8 and eSIM Go at 10 requests a second' : 'eSIM Access at 8 requests a second'} (load ${f.load.start.toFixed(2)} → ${f.load.end.toFixed(2)})`,
    `  delivered                 ${f.delivered} of ${f.orders}`,
    `  eSIM Access calls/delivery ${f.callsPerDelivery.toFixed(2)} (the fewest possible: ${MIN_CALLS_PER_DELIVERY}, esim/order then esim/query)`,
    ...f.partners.map(
      (p) =>
        `  ${p.id.padEnd(25)} ${p.delivered} delivered, ${p.requestsPerDelivery.toFixed(2)} requests each; ${(p.budgetShareUsed * 100).toFixed(1)} % of its budget used while deliveries waited (goal ≥ 90 %); ${p.partner429s} 429s (goal 0)`,
    ),
    `  calls while backlogged    delivery ${f.backlogCalls.delivery}, refund ${f.backlogCalls.refund}, usage ${f.backlogCalls.usage}, other ${f.backlogCalls.other}`,
    `  payment → QR              ${ms(f.paymentToQr)}`,
    `  ideal schedule            ${ms(f.idealPaymentToQr)}`,
    `  late against the ideal    ${ms(f.lateness)}`,
    `  last delivery             ${f.lastDeliverySeconds.toFixed(1)} s after the first payment; the ceiling ${f.ceilingSeconds.toFixed(1)} s; ratio ${f.ceilingRatio.toFixed(3)}`,
    `  refunds                   ${f.refunds.refunded} of ${f.refunds.asked} refunded; asked again after "try again" ${f.refunds.askedAgain} times; each answer ${ms(f.refunds.answerMs)}`,
    `  usage reads (My eSIMs)    ${f.usageReads.asked}, p95 ${f.usageReads.p95Ms} ms`,
    `  order audit               ${f.auditFindings === 0 ? 'nothing found' : `${f.auditFindings} findings`}`,
  ];
}

/** Issue 48's goal: the same rush over both partners finishes at least 1.8 times sooner than over eSIM Access alone. */
export function rushSpeedUp(one: RushFigures, two: RushFigures): string {
  const times = one.lastDeliverySeconds / two.lastDeliverySeconds;
  return `Both partners: the last delivery ${two.lastDeliverySeconds.toFixed(1)} s after the first payment, against ${one.lastDeliverySeconds.toFixed(1)} s with eSIM Access alone: ${times.toFixed(2)} times sooner (goal ≥ 1.8)`;
}

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, setPriority } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { sellablePlans } from '../../src/server/orders/plans.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
// A namespace import: a checkout from before the per-user limits has no such constant (see ORDERS_PER_BUYER).
import * as constants from '../../src/config/constants.ts';
import { startAuthEmulator, signUpOn } from './auth-emulator.ts';

/**
 * DESIGN 3's figures for the shop API, on a real PostgreSQL server over loopback, the API in its
 * own process (scripts/local-shop.ts) as in production, and the Stripe stand-in in another:
 *
 * - `POST /orders` in an open loop: orders arrive at a fixed rate (200 a second for 30 s), each
 *   sent at its time whether or not the earlier ones were answered (a timer, not a pool of buyers
 *   waiting for their answers, which would slow down with the API and hide its queue: coordinated
 *   omission). Each order is a new one (a buyer and plan never ordered before, so a new order row
 *   and a new Checkout Session), and its latency counts from when it left: the sender never waits
 *   for an answer, so the API's queue counts in full, while the sender's own lateness (this
 *   process's garbage collection, the machine's scheduler) is the load generator's and is printed
 *   apart ("sender late by"). The API's own share is that latency less the providers' time
 *   it reports in `Server-Timing`: Stripe's, and the accounts service's lookup (`accounts;dur=…`).
 * - The saturation rate: the highest fixed arrival rate at which the own share's p99 stays within
 *   budget and no order fails, found by a ladder of short runs (5 s each, from 100 a second up, or
 *   down when 100 does not hold) and one bisection. A rate that does not hold is run once more and
 *   holds if either run does: on a shared machine, others' work only ever makes a run slower.
 * - Catalogue reads per second at 50 connections (autocannon, a closed loop: a throughput figure).
 *
 * The budget's run and the saturation ladder are each repeated (`runs`, 3 by default) on the same
 * API process and their medians reported, each figure with the machine's 1-minute load average
 * beside it: on this shared 2-core machine one run says little (issue 31).
 */
export interface OrderRun {
  /** Orders a second, sent on schedule. */
  rate: number;
  seconds: number;
  /** Orders due in the run, and those sent (fewer only when the run was stopped: backlog). */
  planned: number;
  sent: number;
  /** 201 answers; non-2xx answers (by status); errors (connection failures, no answer within 10 s). */
  created: number;
  non2xx: number;
  statuses: Record<string, number>;
  errors: number;
  /** Why the run stopped sending before its end, when it did. */
  stopped: string | null;
  /** The API's own share (round trip from when the order left, less the providers' time), over the created orders. */
  ownP50Ms: number;
  ownP99Ms: number;
  ownMaxMs: number;
  /** The whole round trip, the Stripe stand-in's time included. */
  totalP50Ms: number;
  totalP99Ms: number;
  /**
   * CPU time per order sent, ms, of the API's process (the Stripe stand-in runs apart) and of its
   * PostgreSQL server: steadier than latency on a busy machine. null without /proc.
   */
  apiCpuMsPerOrder: number | null;
  postgresCpuMsPerOrder: number | null;
  /**
   * PostgreSQL transactions committed or rolled back an order (each statement outside a transaction
   * is one), the reconcile job's every 500 ms included; about 3% off, as PostgreSQL publishes its
   * counts up to a second late. Measured in the budget's run only, else null.
   */
  transactionsPerOrder: number | null;
  /** How late the sender fired behind schedule (the client's own delay; counted in the latencies above). */
  sendLagP99Ms: number;
  sendLagMaxMs: number;
  /**
   * How busy the CPUs were meanwhile, in cores (of the machine's): the whole machine, the API's
   * process (with the partner and mail stand-ins it runs, idle here), its PostgreSQL server, the
   * Stripe stand-in, and this load generator; the
   * rest of the machine's is others' work. null where /proc cannot be read (not Linux).
   */
  cpu: { cores: number; machine: number; api: number; postgres: number; stripe: number; client: number } | null;
  /** Own-share p99 within budget and nothing failed. */
  held: boolean;
  /** The machine's 1-minute load average (os.loadavg) at the run's end: others' work shows in it. */
  load1: number;
}

export interface ShopFigures {
  /** The budget's run, a fixed ORDER_RATE a second for ORDER_SECONDS: the median by own-share p99 of `orderRuns`. */
  orders: OrderRun;
  /** Every budget's run, in the order they ran. */
  orderRuns: OrderRun[];
  /** The median of `saturationRates`. */
  saturationRate: number;
  /** Highest arrival rate that held (0 when none did) in each repetition of the ladder, with the 1-minute load average at its end. */
  saturationRates: { rate: number; load1: number }[];
  /** Every ladder run that decided them. */
  saturationRuns: OrderRun[];
  /** Auth emulator accounts that ordered, and the most orders any of them placed. */
  buyers: number;
  ordersPerBuyer: number;
  countriesPerSecond: number;
  packagesPerSecond: number;
}

/** DESIGN 3 and issue 31: POST /orders p99 (own share) within 50 ms with orders arriving at 200 a second for 30 s. */
export const ORDER_RATE = 200;
export const ORDER_SECONDS = 30;
export const OWN_P99_BUDGET_MS = 50;
const STEP_SECONDS = 5;
/** The ladder from the budget's rate up (stopped at the first rate that does not hold), and below it when that one fails. */
const RATES_UP = [200, 250, 300, 350, 400, 500, 600, 800, 1000];
const RATES_DOWN = [150, 100, 75, 50, 25, 10];
/** How often the budget's run and the ladder are repeated by default (the median counts). */
export const SHOP_RUNS = 3;
/**
 * Long enough for the API's, PostgreSQL's and the Auth emulator's code to be compiled hot: a first
 * 200/s run right after 3 s at 50/s took a third more CPU an order than the next ones.
 */
const WARM_UP = { rate: 100, seconds: 15 };
/** The CPU priority (nice) of the providers' stand-ins on this shared machine: below the API's and PostgreSQL's. */
const PROVIDER_NICE = 10;
/** An order without an answer after this long counts as an error. */
const TIMEOUT_MS = 10_000;
/** The shop's per-user limit (10 orders a minute, 30 an hour): no buyer places more in the whole benchmark. */
const ORDERS_PER_BUYER: number = ((constants as Record<string, unknown>).ORDERS_PER_USER_PER_MINUTE as number | undefined) ?? 10;
const READ_SECONDS = 10;

export const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;

/**
 * The shop API in its own process (scripts/local-shop.ts) on a throwaway PostgreSQL server, with
 * its stand-ins on free ports and an Auth emulator of its own; resolves once it answers. With
 * `postgres: false`, on PGlite in-process as `npm start` runs it (its data where `env`'s
 * SHOP_DATA_DIR says, else .data/pglite).
 */
export async function startBenchShop(
  port: number,
  extraArgs: string[] = [],
  { postgres = true, env = {} }: { postgres?: boolean; env?: Record<string, string> } = {},
) {
  // The providers (the accounts service, Stripe) at a lower CPU priority: in production their work
  // is on other machines, and their time is taken out of the API's own share anyway.
  const auth = await startAuthEmulator({ nice: PROVIDER_NICE });
  const api = `http://127.0.0.1:${port}/api`;
  // The Stripe stand-in in a process of its own: in production Stripe's work is not on the API's CPU.
  const stripe = spawn(process.execPath, ['stand-ins/stripe/cli.ts', '--port', '0', '--webhook-url', `${api}/webhooks/stripe`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, STRIPE_WEBHOOK_SECRET: '' },
  });
  setPriority(stripe.pid!, PROVIDER_NICE);
  const stripeUrl = await new Promise<string>((resolve, reject) => {
    let printed = '';
    stripe.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const url = /Stripe stand-in at (http:\/\/\S+);/.exec(printed)?.[1];
      if (url) resolve(url);
    });
    stripe.once('exit', () => reject(new Error(`The Stripe stand-in did not start:\n${printed}`)));
  });
  stripe.stdout.resume();
  const shop = spawn(
    process.execPath,
    [
      'scripts/local-shop.ts',
      '--port',
      String(port),
      '--stripe-url',
      stripeUrl,
      '--partner-port',
      '0',
      '--esim-go-port',
      '0',
      '--smtp-port',
      '0',
      '--push-port',
      '0',
      // Production's in-process tick, not the 2 ticks a second local runs use to clear stuck orders fast.
      '--reconcile-every-ms',
      String(constants.RECONCILE_EVERY_MS),
      ...(postgres ? ['--postgres'] : []),
      ...extraArgs,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env, FIREBASE_AUTH_EMULATOR_HOST: auth.host } },
  );
  async function stop() {
    for (const child of [shop, stripe]) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
    auth.stop();
  }
  while (
    !(await fetch(`${api}/regions`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (shop.exitCode !== null) {
      stripe.kill('SIGTERM');
      auth.stop();
      throw new Error('The shop API did not start');
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  return { api, authHost: auth.host, pid: shop.pid!, stripePid: stripe.pid!, stop };
}

/** A process's CPU seconds (user and system; with its reaped children's when asked), from /proc/<pid>/stat. */
function processCpu(pid: number | string, withChildren = false): { seconds: number; ppid: number } {
  // After the command's closing parenthesis: ppid is field 4, utime 14, stime 15, cutime 16, cstime 17 (USER_HZ, 100 a second).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').map(Number);
  const ticks = fields[11]! + fields[12]! + (withChildren ? fields[13]! + fields[14]! : 0);
  return { seconds: ticks / 100, ppid: fields[1]! };
}

/** The PostgreSQL server the API talks to: the postmaster listening on a port the API's sockets are connected to. */
export function postmasterOf(apiPid: number): { pid: number; port: number } | undefined {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${apiPid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${apiPid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]!);
    } catch {}
  }
  const ports = new Set<number>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    if (columns.length > 9 && inodes.has(columns[9]!)) ports.add(Number.parseInt(columns[2]!.split(':')[1]!, 16));
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const port = Number(args[args.indexOf('-p') + 1]);
      if (args[0]?.endsWith('/postgres') && args.includes('-p') && ports.has(port)) return { pid: Number(entry), port };
    } catch {}
  }
  return undefined;
}

/** A connection to a database of the API's PostgreSQL server (postmasterOf); undefined where it is not found (no /proc: not Linux). */
export async function connectToApiPostgres(apiPid: number, database: string): Promise<pg.Client | undefined> {
  let port: number | undefined;
  try {
    port = postmasterOf(apiPid)?.port;
  } catch {}
  if (!port) return undefined;
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/${database}` });
  await client.connect();
  return client;
}

/** CPU seconds used so far: by the whole machine (/proc/stat), the API's process, its PostgreSQL server, this process; null without /proc. */
function cpuSeconds(
  apiPid: number,
  stripePid: number,
): { machine: number; api: number; postgres: number; stripe: number; client: number } | null {
  try {
    // cpu user nice system idle iowait irq softirq steal ..., in USER_HZ.
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const busy = ticks.slice(0, 8).reduce((sum, n) => sum + n, 0) - ticks[3]! - ticks[4]!;
    // The postmaster with the backends it has reaped, and its live children (backends, checkpointer, autovacuum ...).
    const postmaster = postmasterOf(apiPid)?.pid;
    let postgres = 0;
    if (postmaster !== undefined) {
      postgres = processCpu(postmaster, true).seconds;
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const cpu = processCpu(entry);
          if (cpu.ppid === postmaster) postgres += cpu.seconds;
        } catch {}
      }
    }
    const { user, system } = process.cpuUsage();
    return {
      machine: busy / 100,
      api: processCpu(apiPid).seconds,
      postgres,
      stripe: processCpu(stripePid).seconds,
      client: (user + system) / 1e6,
    };
  } catch {
    return null;
  }
}

/** A prepared request: everything built before the clock starts. */
interface PreparedOrder {
  headers: Record<string, string | number>;
  body: Buffer;
}

/**
 * Orders for a run: fresh buyers (signed up now, before the run), each placing at most
 * ORDERS_PER_BUYER orders of distinct plans, interleaved so that consecutive orders come from
 * different buyers (buyer k mod n places order k), as independent customers would.
 */
function orderSource(authHost: string) {
  const plans = [...sellablePlans(embeddedSnapshot()).values()];
  if (plans.length < ORDERS_PER_BUYER)
    throw new Error(`only ${plans.length} sellable plans: a buyer could not order ${ORDERS_PER_BUYER} distinct ones`);
  let buyersSoFar = 0;
  return {
    get buyers() {
      return buyersSoFar;
    },
    async prepare(count: number): Promise<PreparedOrder[]> {
      const n = Math.ceil(count / ORDERS_PER_BUYER);
      const tokens: string[] = [];
      for (let i = 0; i < n; i += 25) {
        const batch = await Promise.all(Array.from({ length: Math.min(25, n - i) }, () => signUpOn(authHost)));
        tokens.push(...batch.map((buyer) => buyer.idToken));
      }
      const first = buyersSoFar;
      buyersSoFar += n;
      return Array.from({ length: count }, (_, k) => {
        const buyer = k % n;
        // The buyer's j-th order: plans j apart, starting at a different plan for every buyer.
        const plan = plans[((first + buyer) * ORDERS_PER_BUYER + Math.floor(k / n)) % plans.length]!;
        const body = Buffer.from(
          JSON.stringify({ planId: plan.pkg.id, lang: 'en', expectedPrice: plan.price, consents: { terms: true, immediateStart: true } }),
        );
        return {
          body,
          headers: { Authorization: `Bearer ${tokens[buyer]}`, 'Content-Type': 'application/json', 'Content-Length': body.length },
        };
      });
    },
  };
}

/**
 * Sends `orders` to POST /orders at a fixed rate from a timer: order i is due at start + i/rate
 * and goes out then, however many earlier ones are still unanswered (each on a connection of its
 * own when needed: the agent has no connection limit). Resolves once every order is answered.
 */
async function openLoop(
  api: string,
  { apiPid, stripePid }: { apiPid: number; stripePid: number },
  rate: number,
  seconds: number,
  orders: PreparedOrder[],
  transactions?: () => Promise<number>,
): Promise<OrderRun> {
  const url = new URL(`${api}/orders`);
  // A fresh pool a run; idle connections closed before the server's 5 s keep-alive timeout.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 2_000 });
  const planned = orders.length;
  const own: number[] = [];
  const total: number[] = [];
  const lags: number[] = [];
  const statuses: Record<string, number> = {};
  let created = 0;
  let errors = 0;
  let inFlight = 0;
  let stopped: string | null = null;
  // Sending stops when the backlog passes 3 s of arrivals: the rate is not held, and waiting for more answers only costs time.
  const maxInFlight = Math.max(300, rate * 3);
  const interval = 1000 / rate;
  const start = performance.now() + 20;
  let next = 0;
  let finish!: () => void;
  const finished = new Promise<void>((done) => (finish = done));
  const settle = () => {
    inFlight--;
    if (inFlight === 0 && (next >= planned || stopped)) finish();
  };

  const send = (order: PreparedOrder) => {
    inFlight++;
    let answered = false;
    // Timed from when it left, not from when it was due: a sender that stalls (this process's own
    // garbage collection, this machine's scheduler) sends late, which is the load generator's delay,
    // not the API's, and is reported apart (sendLag). The API's queue still counts: sending never
    // waits for an answer.
    const sentAt = performance.now();
    const req = request(url, { method: 'POST', agent, headers: order.headers }, (res) => {
      const timing = res.headers['server-timing'];
      res.resume();
      res.on('end', () => {
        if (answered) return;
        answered = true;
        const elapsed = performance.now() - sentAt;
        if (res.statusCode === 201) {
          created++;
          // The providers' time: Stripe's, and the accounts service's lookup (Google's in production).
          const provider = [...String(timing ?? '').matchAll(/(?:stripe|accounts);dur=([\d.]+)/g)].reduce(
            (sum, m) => sum + Number(m[1]),
            0,
          );
          total.push(elapsed);
          own.push(elapsed - provider);
        } else {
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
        }
        settle();
      });
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error('no answer in time')));
    req.on('error', () => {
      if (answered) return;
      answered = true;
      errors++;
      settle();
    });
    req.end(order.body);
  };

  const tick = () => {
    const now = performance.now();
    while (next < planned && start + next * interval <= now) {
      if (inFlight >= maxInFlight) {
        stopped = `stopped after ${next} orders: ${inFlight} unanswered`;
        if (inFlight === 0) finish();
        return;
      }
      const due = start + next * interval;
      lags.push(now - due);
      send(orders[next]!);
      next++;
    }
    if (next < planned) setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    else if (inFlight === 0) finish();
  };
  const transactionsBefore = await transactions?.();
  setTimeout(tick, Math.max(0, start - performance.now()));
  const cpuBefore = cpuSeconds(apiPid, stripePid);
  await finished;
  const cpuAfter = cpuSeconds(apiPid, stripePid);
  const wall = (performance.now() - start) / 1000;
  agent.destroy();
  // PostgreSQL publishes a busy backend's counts at most once a second.
  if (transactions) await new Promise((done) => setTimeout(done, 1_100));
  const transactionsAfter = await transactions?.();
  const cores = (key: 'machine' | 'api' | 'postgres' | 'stripe' | 'client') =>
    Number(((cpuAfter![key] - cpuBefore![key]) / wall).toFixed(2));

  own.sort((a, b) => a - b);
  total.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  const non2xx = Object.values(statuses).reduce((sum, n) => sum + n, 0);
  const ownP99Ms = percentile(own, 99);
  return {
    rate,
    seconds,
    planned,
    sent: next,
    created,
    non2xx,
    statuses,
    errors,
    stopped,
    ownP50Ms: percentile(own, 50),
    ownP99Ms,
    ownMaxMs: own.at(-1) ?? Number.NaN,
    totalP50Ms: percentile(total, 50),
    totalP99Ms: percentile(total, 99),
    sendLagP99Ms: percentile(lags, 99),
    sendLagMaxMs: lags.at(-1) ?? 0,
    apiCpuMsPerOrder: cpuBefore && cpuAfter && next ? Number((((cpuAfter.api - cpuBefore.api) * 1000) / next).toFixed(2)) : null,
    transactionsPerOrder:
      transactionsBefore !== undefined && transactionsAfter !== undefined && next
        ? Number(((transactionsAfter - transactionsBefore) / next).toFixed(1))
        : null,
    postgresCpuMsPerOrder:
      cpuBefore && cpuAfter && next ? Number((((cpuAfter.postgres - cpuBefore.postgres) * 1000) / next).toFixed(2)) : null,
    cpu:
      cpuBefore && cpuAfter
        ? {
            cores: cpus().length,
            machine: cores('machine'),
            api: cores('api'),
            postgres: cores('postgres'),
            stripe: cores('stripe'),
            client: cores('client'),
          }
        : null,
    held: !stopped && errors === 0 && non2xx === 0 && created === planned && ownP99Ms <= OWN_P99_BUDGET_MS,
    load1: loadavg()[0]!,
  };
}

const describeRun = (run: OrderRun) =>
  `${run.rate}/s for ${run.seconds} s: own p50 ${run.ownP50Ms.toFixed(1)} ms, p99 ${run.ownP99Ms.toFixed(1)} ms; ` +
  `${run.created}/${run.planned} created, ${run.non2xx} non-2xx, ${run.errors} errors; sender late by ${run.sendLagP99Ms.toFixed(1)} ms at p99, ${run.sendLagMaxMs.toFixed(1)} ms at most` +
  `${run.apiCpuMsPerOrder === null ? '' : `; CPU an order: API ${run.apiCpuMsPerOrder.toFixed(2)} ms, PostgreSQL ${run.postgresCpuMsPerOrder!.toFixed(2)} ms`}` +
  `${run.transactionsPerOrder === null ? '' : `; ${run.transactionsPerOrder} PostgreSQL transactions an order`}` +
  `${run.stopped ? `; ${run.stopped}` : ''}${run.cpu ? `; ${describeCpu(run.cpu)}` : ''}; load ${run.load1.toFixed(2)} -> ${run.held ? 'held' : 'not held'}`;

export const describeCpu = (cpu: NonNullable<OrderRun['cpu']>) =>
  `CPU busy ${cpu.machine.toFixed(1)} of ${cpu.cores} cores: API ${cpu.api.toFixed(2)}, PostgreSQL ${cpu.postgres.toFixed(2)}, ` +
  `Stripe stand-in ${cpu.stripe.toFixed(2)}, load generator ${cpu.client.toFixed(2)}, ` +
  `others' work ${Math.max(0, cpu.machine - cpu.api - cpu.postgres - cpu.stripe - cpu.client).toFixed(2)}`;

/** The median of a list (the lower middle of an even one: a run that happened, not an average of two). */
const median = <T>(items: T[], by: (item: T) => number): T => items.toSorted((a, b) => by(a) - by(b))[Math.floor((items.length - 1) / 2)]!;

export async function benchShopApi({ port = 8798, runs: repeat = SHOP_RUNS }: { port?: number; runs?: number } = {}): Promise<ShopFigures> {
  const { api, authHost, pid, stripePid, stop } = await startBenchShop(port);
  try {
    const source = orderSource(authHost);
    let transactions: (() => Promise<number>) | undefined;
    const run = async (rate: number, seconds: number, countTransactions = false) => {
      const orders = await source.prepare(rate * seconds);
      // A moment for the sign-ups' work to settle before the clock starts.
      await new Promise((done) => setTimeout(done, 1_000));
      const result = await openLoop(api, { apiPid: pid, stripePid }, rate, seconds, orders, countTransactions ? transactions : undefined);
      console.log(`  POST /orders ${describeRun(result)}`);
      return result;
    };

    console.log(
      `POST /orders, open loop: warm-up at ${WARM_UP.rate}/s, then ${repeat} times ${ORDER_RATE}/s for ${ORDER_SECONDS} s, then ${repeat} times ` +
        `the saturation ladder (${STEP_SECONDS} s a rate, a rate that does not hold tried twice); medians count ...`,
    );
    // Warm-up: connections, the token check's keys, the database's plans and statements.
    await run(WARM_UP.rate, WARM_UP.seconds);
    // The API's PostgreSQL server, now that the API holds connections to it (Linux only).
    const stats = await connectToApiPostgres(pid, 'postgres');
    if (stats) {
      transactions = async () =>
        Number((await stats.query<{ n: string }>('SELECT sum(xact_commit + xact_rollback) AS n FROM pg_stat_database')).rows[0]!.n);
    }
    const orderRuns: OrderRun[] = [];
    try {
      for (let i = 0; i < repeat; i++) orderRuns.push(await run(ORDER_RATE, ORDER_SECONDS, true));
    } finally {
      await stats?.end();
    }

    // The saturation rate: up the ladder while rates hold (down it when the first does not), then
    // one bisection between the last rate that held and the first that did not; `repeat` times.
    const runs: OrderRun[] = [];
    const holds = async (rate: number) => {
      for (let attempt = 0; attempt < 2; attempt++) {
        const step = await run(rate, STEP_SECONDS);
        runs.push(step);
        if (step.held) return true;
      }
      return false;
    };
    const saturation = async () => {
      let held = 0;
      let failed = Number.POSITIVE_INFINITY;
      const up = await holds(RATES_UP[0]!);
      if (up) held = RATES_UP[0]!;
      else failed = RATES_UP[0]!;
      for (const rate of up ? RATES_UP.slice(1) : RATES_DOWN) {
        if (await holds(rate)) held = rate;
        else failed = rate;
        // Up: until a rate does not hold; down: until one does.
        if ((held === rate) !== up) break;
      }
      if (Number.isFinite(failed) && failed - held > 10) {
        const middle = Math.round((held + failed) / 2 / 5) * 5;
        if (await holds(middle)) held = middle;
      }
      console.log(`  saturation rate ${held}/s (load ${loadavg()[0]!.toFixed(2)})`);
      return { rate: held, load1: loadavg()[0]! };
    };
    const saturationRates: ShopFigures['saturationRates'] = [];
    for (let i = 0; i < repeat; i++) saturationRates.push(await saturation());

    const reads = async (path: string) => {
      const result = await autocannon({ url: `${api}${path}`, connections: 50, duration: READ_SECONDS });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      return Math.round(result.requests.average);
    };
    return {
      // A run that stopped or lost orders ranks above any that completed.
      orders: median(orderRuns, (r) => (r.stopped || !Number.isFinite(r.ownP99Ms) ? Number.POSITIVE_INFINITY : r.ownP99Ms)),
      orderRuns,
      saturationRate: median(saturationRates, (r) => r.rate).rate,
      saturationRates,
      saturationRuns: runs,
      buyers: source.buyers,
      ordersPerBuyer: ORDERS_PER_BUYER,
      countriesPerSecond: await reads('/countries?lang=ja'),
      packagesPerSecond: await reads('/packages?regionId=DE'),
    };
  } finally {
    await stop();
  }
}

import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEsimAccessStandIn, type EsimAccessStandIn } from '../../../stand-ins/esim-access/server.ts';
import { databaseDrivers, serverUrlOf } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import { openPostgres } from '../db/postgres.ts';
import { createEsimAccessPartner } from './esim-access/adapter.ts';
import type { EsimPartner } from './partner.types.ts';
import { postgresPartnerBudget } from './partner-budget.ts';
import type { PartnerBudget } from './partner-budget.types.ts';

// The partner's 8 requests a second as one budget for every API instance, in the shop's database,
// with deliveries first (issue 20): adapters against the eSIM Access stand-in, which answers 429
// to a ninth request in any second, over HTTP. On a real server only (TEST_ALL_DRIVERS=1 adds PGlite):
// instances share a budget only there, the timing is measured alone (the timed project), and on
// PGlite, one connection in one process, the same SQL runs under every shop test that reaches the partner.
const SECRET = 'budget-secret-key';
const WINDOW_MS = 1000;

/** Each API instance's budget: its own limiter object, on its own connections to the one database. */
const budgetOf = (database: Db, account: string): PartnerBudget => postgresPartnerBudget(database, { account });

/** The most requests the stand-in saw arrive in any window of a second (how it counts). */
function mostInAnySecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('the partner budget on $name', (driver) => {
  let db: Db;
  /** A second API instance's connections: a pool of its own on a server; PGlite is one connection in one process. */
  let other: Db;
  let standIn: EsimAccessStandIn;
  /** A new partner account for each test: the last test's requests hold no slots of this one. */
  let accessCode: string;

  beforeAll(async () => {
    db = await driver.open();
    other = driver.name === 'PostgreSQL' ? await openPostgres(await serverUrlOf(db), { max: 4 }) : db;
  }, 120_000);
  afterAll(async () => {
    if (other !== db) await other.close();
    await db.close();
  });
  beforeEach(async () => {
    accessCode = `budget-${randomUUID()}`;
    standIn = await startEsimAccessStandIn({ accessCode, secretKey: SECRET, allocationDelayMs: 100 });
  });
  afterEach(() => standIn.close());

  /** One API instance's adapter. Sent once (no retries): every request the stand-in sees is one call. */
  const instance = (database: Db): EsimPartner =>
    createEsimAccessPartner({ accessCode, secretKey: SECRET, baseUrl: standIn.url, retries: 0, budget: budgetOf(database, accessCode) });

  const order = (partner: EsimPartner) =>
    partner.orderEsim({ transactionId: randomUUID(), partnerCode: standIn.packages[0]!.packageCode, count: 1 });
  /** A refund's read of one eSIM (an unknown one: the partner answers, the adapter reports 'not found', ignored here). */
  const readEsim = (partner: EsimPartner) => partner.queryProfiles({ esimTranNo: `unknown-${randomUUID()}` }).catch(() => undefined);
  const readUsage = (partner: EsimPartner) => partner.usage([`unknown-${randomUUID()}`]);
  /** The back office's read of one eSIM on an operator's request, at the lowest priority. */
  const readForOperator = (partner: EsimPartner) =>
    partner.queryProfiles({ esimTranNo: `unknown-${randomUUID()}` }, { priority: 'operator' }).catch(() => undefined);

  const arrivals = (call?: string) => standIn.requests.filter((r) => call === undefined || r.call === call).map((r) => r.receivedAt);
  const refused = () => standIn.requests.filter((r) => r.status === 429).length;

  it('two instances sending 40 requests at once never start more than 8 in a second', { timeout: 30_000 }, async () => {
    const [a, b] = [instance(db), instance(other)];
    const calls = [a, b].flatMap((partner) => [
      ...Array.from({ length: 4 }, () => order(partner)),
      ...Array.from({ length: 6 }, () => readEsim(partner)),
      ...Array.from({ length: 10 }, () => readUsage(partner)),
    ]);
    await Promise.allSettled(calls);

    expect(standIn.requests).toHaveLength(40);
    const most = mostInAnySecond(arrivals());
    console.log(`${driver.name}: 40 requests from 2 instances, at most ${most} in any second, ${refused()} answered 429`);
    expect(refused()).toBe(0);
    expect(most).toBeLessThanOrEqual(8);
  });

  it('tells the back office how much of it is in use now, across instances', { timeout: 30_000 }, async () => {
    const [mine, theirs] = [postgresPartnerBudget(db, { account: accessCode }), postgresPartnerBudget(other, { account: accessCode })];
    expect(await mine.use()).toEqual({ held: 0, requests: 8, waitingInstances: 0 });
    // Three requests under way here, two on the other instance: five of eight held, seen from either.
    const releases = await Promise.all([
      ...Array.from({ length: 3 }, () => mine.acquire('delivery')),
      ...Array.from({ length: 2 }, () => theirs.acquire('usage')),
    ]);
    expect(await theirs.use()).toEqual({ held: 5, requests: 8, waitingInstances: 0 });
    for (const release of releases) await release();
  });

  it('a delivery starts within a second while 30 usage reads are queued', { timeout: 30_000 }, async () => {
    const shop = instance(db);
    const reads = Array.from({ length: 30 }, () => readUsage(shop));
    // The reads have the budget: the first ones are at the partner, the rest wait for turns.
    await until(() => standIn.requests.length >= 1);
    const askedAt = Date.now();
    await order(shop);
    await Promise.allSettled(reads);

    const [orderedAt] = arrivals('esim/order');
    const usageBefore = arrivals('esim/usage/query').filter((t) => t < orderedAt!).length;
    console.log(
      `${driver.name}: the delivery started ${orderedAt! - askedAt} ms after it was asked, after ${usageBefore} of 30 usage reads`,
    );
    expect(orderedAt! - askedAt).toBeLessThan(WINDOW_MS);
    expect(refused()).toBe(0);
    expect(mostInAnySecond(arrivals())).toBeLessThanOrEqual(8);
  });

  it('operator reads never take a slot a delivery waits for, on this instance or another', { timeout: 30_000 }, async () => {
    const [a, b] = [instance(db), instance(other)];
    const reads = Array.from({ length: 30 }, (_, i) => readForOperator(i % 2 ? a : b));
    // Operator reads may hold 5 of the 8 slots at most: 3 are left for the deliveries at once.
    await until(() => standIn.requests.length >= 5);
    const askedAt = Date.now();
    await Promise.all([order(a), order(a), order(b), order(b)]);
    await Promise.allSettled(reads);

    const deliveries = arrivals('esim/order');
    const [firstDelivery, lastDelivery] = [Math.min(...deliveries), Math.max(...deliveries)];
    const readsBetween = arrivals('esim/query').filter((t) => t > firstDelivery && t < lastDelivery).length;
    console.log(`${driver.name}: 4 deliveries started within ${lastDelivery - askedAt} ms, ${readsBetween} operator reads meanwhile`);
    expect(lastDelivery - askedAt).toBeLessThan(2 * WINDOW_MS);
    expect(readsBetween).toBe(0);
    expect(refused()).toBe(0);
    expect(mostInAnySecond(arrivals())).toBeLessThanOrEqual(8);
  });

  it('operator reads wait behind usage reads asked after them', { timeout: 30_000 }, async () => {
    const shop = instance(db);
    const reads = Array.from({ length: 20 }, () => readForOperator(shop));
    await until(() => standIn.requests.length >= 5);
    const usage = Array.from({ length: 10 }, () => readUsage(shop));
    await Promise.all(usage);
    const lastUsage = Math.max(...arrivals('esim/usage/query'));
    await Promise.allSettled(reads);

    // Only the operator reads under way or granted when the usage reads were asked (5 slots at
    // most) arrive before the last usage read; the other 15 wait for it.
    const readsBefore = arrivals('esim/query').filter((t) => t < lastUsage).length;
    console.log(`${driver.name}: ${readsBefore} of 20 operator reads before the last of 10 usage reads asked after them`);
    expect(readsBefore).toBeLessThanOrEqual(5 + 1);
    expect(refused()).toBe(0);
  });

  it('deliveries on one instance go before refunds waiting on another, and never beyond the budget', { timeout: 30_000 }, async () => {
    const [a, b] = [instance(db), instance(other)];
    const refunds = Array.from({ length: 30 }, () => readEsim(a));
    await until(() => standIn.requests.length >= 7);
    const askedAt = Date.now();
    await Promise.all(Array.from({ length: 4 }, () => order(b)));
    await Promise.allSettled(refunds);

    const deliveries = arrivals('esim/order');
    const [firstDelivery, lastDelivery] = [Math.min(...deliveries), Math.max(...deliveries)];
    // From the first delivery on, B's waiting ones are registered: no refund of A's may go before them.
    const refundsBetween = arrivals('esim/query').filter((t) => t > firstDelivery && t < lastDelivery).length;
    console.log(`${driver.name}: 4 deliveries started within ${lastDelivery - askedAt} ms, ${refundsBetween} refund reads meanwhile`);
    // The refunds sent hold the budget one more window at most (the first delivery takes the slot
    // refunds may not use); then the deliveries go first. Behind the refunds, it would be 3 s.
    expect(lastDelivery - askedAt).toBeLessThan(2 * WINDOW_MS);
    expect(refundsBetween).toBe(0);
    expect(refused()).toBe(0);
    expect(mostInAnySecond(arrivals())).toBeLessThanOrEqual(8);
  });

  it(
    'a buyer’s read that stops waiting in a rush is never sent and fails at once; the deliveries keep the budget',
    { timeout: 30_000 },
    async () => {
      const [a, b] = [instance(db), instance(other)];
      // A rush on B: 30 new orders, 4 seconds of the budget.
      const orders = Array.from({ length: 30 }, () => order(b));
      await until(() => standIn.requests.length >= 8);
      const askedAt = Date.now();
      // A buyer on A asks to refund: its read waits behind the deliveries, and the buyer's request gives up.
      const read = a.queryProfiles({ esimTranNo: `unknown-${randomUUID()}` }, { signal: AbortSignal.timeout(300) });
      await expect(read).rejects.toMatchObject({ name: 'PartnerError', kind: 'busy' });
      const gaveUpAfter = Date.now() - askedAt;
      await Promise.all(orders);
      // A's queue still works once the rush is over.
      await readUsage(a);

      console.log(`${driver.name}: the buyer's read gave up after ${gaveUpAfter} ms, unsent`);
      expect(gaveUpAfter).toBeLessThan(WINDOW_MS);
      expect(arrivals('esim/query')).toHaveLength(0);
      expect(arrivals('esim/order')).toHaveLength(30);
      expect(arrivals('esim/usage/query')).toHaveLength(1);
      expect(refused()).toBe(0);
      expect(mostInAnySecond(arrivals())).toBeLessThanOrEqual(8);
    },
  );

  it(
    'a delivery’s last call (the allocated eSIM’s read) goes before new orders waiting on another instance',
    { timeout: 30_000 },
    async () => {
      const [a, b] = [instance(db), instance(other)];
      // A rush: 30 new orders queued on A.
      const orders = Array.from({ length: 30 }, () => order(a));
      await until(() => standIn.requests.length >= 8);
      const askedAt = Date.now();
      // B finishes 4 deliveries whose eSIMs are allocated (their reads, unknown ones: only the turn matters here).
      const reads = (partner: EsimPartner) =>
        partner.queryProfiles({ partnerOrderNo: `B${randomUUID()}` }, { priority: 'allocated' }).catch(() => undefined);
      await Promise.all(Array.from({ length: 4 }, () => reads(b)));
      const readsDoneAt = Date.now();
      await Promise.allSettled(orders);

      const ordersBefore = arrivals('esim/order').filter((t) => t > askedAt && t < readsDoneAt).length;
      console.log(`${driver.name}: 4 last calls within ${readsDoneAt - askedAt} ms, ${ordersBefore} new orders sent meanwhile`);
      // Behind the 22 orders still waiting, they would take 3 s.
      expect(readsDoneAt - askedAt).toBeLessThan(2 * WINDOW_MS);
      expect(refused()).toBe(0);
      expect(mostInAnySecond(arrivals())).toBeLessThanOrEqual(8);
    },
  );
});

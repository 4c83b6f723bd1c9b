import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject, it, onTestFinished } from 'vitest';
import { reportLines, runFaultRun } from '../../scripts/lib/fault-run/run.ts';
import { onServer, serverDatabaseUrl } from '../../tests/support/databases.ts';

/**
 * The fault-injection run of `npm run faults` (docs/fault-run-and-benchmark.md), short: 20 eSIM
 * orders with a fixed seed, through API processes killed with SIGKILL at least once and fault
 * proxies before the Stripe and eSIM Access stand-ins. Every check must hold: the order audit finds
 * nothing, and the stand-ins agree (each paid order delivered or refunded once, one eSIM per
 * order, each top-up applied once (also two top-ups of one eSIM at once), no refund without the eSIM cancelled, no double charge),
 * also for an operator's refunds through the back office: a part, then the rest, some clicked twice at
 * once, each made once at Stripe, and every refund at Stripe one the shop asked for; and for
 * replacements and exchanges (issue 46), some with a refund pressed at the same moment or before the
 * exchange is paid: no purchase both replaced and refunded, or given back more than was paid; and
 * for automatic top-ups (issue 49), their crossings measured again and raced, the off-session charge
 * and the top-up meeting the faults: each charged once and applied once, or refunded, within the
 * buyer's limits, and a refused one charged nothing.
 */
const SEED = 20_2026;

it('20 orders under faults and SIGKILLs: every paid order delivered or refunded once, nothing found', async () => {
  // A database and a folder of its own for each attempt: a retry on CI starts from nothing, as the run's stand-ins do.
  const database = `fault_run_${randomUUID().replaceAll('-', '')}`;
  await onServer(`CREATE DATABASE ${database}`);
  const logDir = mkdtempSync(join(tmpdir(), 'fault-run-test-'));
  onTestFinished(async () => {
    await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    rmSync(logDir, { recursive: true, force: true });
  });
  const lines: string[] = [];
  const report = await runFaultRun({
    orders: 20,
    seed: SEED,
    // Issue 46: the run passes at 20 % faults with exchanges and replacements in it.
    faultRate: 0.2,
    concurrency: 6,
    // Enough top-ups that some eSIM is topped up twice at once (issue 29, defect 1).
    topUpShare: 0.5,
    killEveryMs: [3_000, 6_000],
    // Issue 48: eSIM Access down for half a minute (60 s in `npm run faults`), orders going to eSIM Go meanwhile.
    outageMs: 30_000,
    firstKillMs: 2_000,
    // Bounded well inside the test's time: a run that cannot finish reports why instead of timing out.
    // 95 s: at 70 s a CI run on a slow machine (often no instance up between kills) started 18 of the
    // 20 orders and left the Refund-and-Replace race untried; its retry, every order but an operator's "rest".
    buyingMs: 95_000,
    // A run that settles ends its drain at once; one on a busy machine whose last retries wait (a
    // killed instance's claims and budget slots run out) gets the time they take.
    drainTimeoutMs: 90_000,
    authHost: inject('authEmulatorHost'),
    databaseUrl: serverDatabaseUrl(database),
    logDir,
    log: (line) => lines.push(line),
  });
  const summary = [...lines, ...reportLines(report)].join('\n');
  expect(report.failures, summary).toEqual([]);
  expect(report.kills, summary).toBeGreaterThanOrEqual(1);
  expect(report.starts, summary).toBeGreaterThan(1);
  const injected = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  expect(injected(report.faults.stripe) + injected(report.faults.partner), summary).toBeGreaterThan(0);
  expect(report.buyers.paid, summary).toBeGreaterThanOrEqual(20);
  // Both partners delivered: eSIM Go while eSIM Access was down (issue 48), one eSIM an order (the checks).
  expect(report.outage.ms, summary).toBeGreaterThan(0);
  expect(report.partners.delivered['esim-access'] ?? 0, summary).toBeGreaterThan(0);
  expect(report.partners.delivered['esim-go'] ?? 0, summary).toBeGreaterThan(0);
  // The race of issue 29 (defect 1) on purpose: an eSIM topped up twice at once, its top-ups meeting faults.
  expect(report.buyers.topUps.twoAtOnce, summary).toBeGreaterThan(0);
  // Carts (issue 33): several eSIMs on one payment, each delivered or refunded once under the same faults.
  expect(report.buyers.carts.paid, summary).toBeGreaterThan(0);
  expect(report.buyers.carts.esims, summary).toBeGreaterThan(report.buyers.carts.paid);
  // Buyers pay in currencies of their own (issue 34): the checks hold in each.
  expect(Object.keys(report.paidIn).length, summary).toBeGreaterThan(2);
  // Operator refunds (issue 30 item 5) under the same faults and kills.
  expect(report.buyers.operator.partial, summary).toBeGreaterThan(0);
  expect(report.buyers.operator.rest, summary).toBeGreaterThan(0);
  // Operator blocks (issue 30 item 6): a buyer blocked at work, refused 403 account_blocked for good.
  expect(report.blocks.blocks, summary).toBeGreaterThan(0);
  expect(report.buyers.blocks.refusals, summary).toBeGreaterThan(0);
  // One outcome per purchase (issue 46): replacements, exchanges, and Refund pressed at the same moment as Replace.
  expect(report.buyers.replacements.replaced, summary).toBeGreaterThan(0);
  expect(report.buyers.exchanges.paid, summary).toBeGreaterThan(0);
  expect(report.buyers.exchanges.replaceFirst + report.buyers.exchanges.bothFirst, summary).toBeGreaterThan(0);
  expect(report.buyers.races.pressed, summary).toBeGreaterThan(0);
  expect(
    report.checks.find((c) => c.name === 'one_outcome_per_purchase'),
    summary,
  ).toBeDefined();
  // Automatic top-ups (issue 49): crossings of 10 % left measured again and raced, charged off-session (or
  // refused by the bank, card 3184, and paid from the e-mail's link), each decided once; the checks above
  // hold for them. Which ones get as far as a crossing depends on the faults (a traveller's install not
  // seen in time ends that buyer's try), so the run asserts that some did, and that none was left undecided.
  expect(report.buyers.autoTopUps.repeated, summary).toBeGreaterThan(0);
  expect(report.buyers.autoTopUps.raced, summary).toBeGreaterThan(0);
  const decided = Object.entries(report.crossings).filter(([ended]) => ended === 'charged' || ended.startsWith('refused'));
  expect(decided, summary).not.toEqual([]);
  expect(
    report.checks.find((c) => c.name === 'auto_top_ups'),
    summary,
  ).toBeDefined();
  expect(report.audit.findings, summary).toEqual([]);
  expect(report.drain.settled, summary).toBe(true);
  // The run bounds itself (buying 95 s, drain 90 s); the rest is starting and stopping API processes, slow on a busy machine.
}, 300_000);

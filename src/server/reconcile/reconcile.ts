import type Stripe from 'stripe';
import type { Alerts } from '../alerts/alerts.types.ts';
import type { AutoTopUps } from '../auto-top-ups/auto-top-ups.ts';
import type { Db } from '../db/db.types.ts';
import type { Fulfilment } from '../fulfilment/fulfilment.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import { balanceCheckDue, checkPartnerBalance } from '../ops/balance-alert.ts';
import { resumeSalesIfFunded } from '../orders/sales-pause.ts';
import type { OrderStore } from '../orders/store.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { CheckoutExpiry } from '../payments/checkout-expiry.types.ts';
import { fillChargeFacts } from '../payments/charge-facts.ts';
import { syncCheckouts } from '../webhooks/checkout-sync.ts';
import { sendDueSupportEmails } from '../support/outbox.ts';
import { refundMismatches } from '../payments/mismatches.ts';
import { runDueSweeps, type Sweep } from '../jobs/periodic.ts';
import { AUTO_TOP_UP } from '../../config/auto-top-ups.ts';
import { PARTNER_ORPHANS } from '../../config/constants.ts';
import { releasePartnerOrphans } from './partner-orphans.ts';
import { settleRefundedOrderWrites } from './refunded-order-writes.ts';

/**
 * The reconcile job, run by the in-process timer and POST /jobs/reconcile: the order jobs that are
 * due (jobs/queue.ts: deliveries, refunds, e-mails), then each sweep whose time has come, a periodic
 * job of its own (jobs/periodic.ts): payments whose webhook never came, closed orders' payment pages
 * still open at Stripe, money for no order, charges not read yet (fraud signals, Stripe's fee),
 * partner orders a refund left unsettled,
 * alerts and support e-mails whose send failed or whose timer a restart lost. Answers how many
 * things it handled.
 */
export function createReconcileJob(deps: {
  db: Db;
  stripe: Stripe;
  partners: Partners;
  store: OrderStore;
  fulfilment: Fulfilment;
  checkouts: CheckoutExpiry;
  alerts: Pick<Alerts, 'sweep' | 'readUsage'>;
  /** Automatic top-ups whose job is due (a restart's, a retry's). */
  autoTopUps: Pick<AutoTopUps, 'runDue' | 'unreadWatched'>;
  /** The provider's low-balance e-mail: the mailer, and where it goes (none: only the log). */
  mailer: Mailer;
  providerAlertEmail: string | undefined;
  /** How long after its run each sweep is due again (default 0: at every tick; each has its own queue or gate too). */
  sweepEveryMs?: Partial<Record<SweepName, number>>;
  /** Short timing for the fault run: partners' unclaimed purchases looked for often and young (default PARTNER_ORPHANS), and a sweep's claim, when its instance died, lapsing soon. */
  timing?: ReconcileTiming;
}): () => Promise<number> {
  const { db, stripe, partners, store, fulfilment, checkouts, alerts } = deps;
  const every = (name: SweepName) => deps.sweepEveryMs?.[name] ?? 0;
  const sweep = (name: SweepName, run: () => Promise<number>): Sweep => ({ name, everyMs: every(name), run });
  const before: Sweep[] = [
    // A partner paused for want of balance takes orders again once its balance covers what failed (asked at most once a minute).
    sweep('sales_pause', async () => {
      await resumeSalesIfFunded(db, partners);
      return 0;
    }),
    // Payments whose webhook never came: read at Stripe, then delivered like any other.
    sweep('checkout_sync', async () => {
      const paid = await syncCheckouts(db, stripe, store);
      for (const id of paid) await fulfilment.run(id);
      return paid.length;
    }),
    // Automatic top-ups due whose run a restart or a failure left: charged, or their buyer told.
    sweep('auto_top_ups', () => deps.autoTopUps.runDue()),
  ];
  const after: Sweep[] = [
    sweep('checkout_expiry', () => checkouts.closeDue()),
    sweep('payment_mismatches', () => refundMismatches(db, stripe)),
    // Charges Stripe could not be read for when their order was delivered (fraud signals, Stripe's fee).
    sweep('charge_facts', () => fillChargeFacts(db, stripe)),
    // Partner orders a refund left unsettled (a send that might still have been on its way), read back once quiet.
    sweep('refunded_order_writes', () => settleRefundedOrderWrites(db, partners)),
    // Purchases at a partner no order claims (eSIM Go's unlabelled eSIMs), refunded to its balance: once an hour.
    {
      name: 'partner_orphans',
      everyMs: deps.sweepEveryMs?.partner_orphans ?? deps.timing?.partnerOrphans?.everyMs ?? PARTNER_ORPHANS.everyMs,
      run: () => releasePartnerOrphans(db, partners, new Date(), deps.timing?.partnerOrphans?.settleMs),
    },
    // Alerts last: a failing mail relay or push service never holds up a delivery or a refund. The
    // provider's low-balance e-mail among them: each partner's balance read at most every 10 minutes across instances.
    sweep('balance_alert', async () => {
      if (await balanceCheckDue(db))
        for (const partner of partners.ids)
          await checkPartnerBalance({ db, partners, partner, mailer: deps.mailer, providerEmail: deps.providerAlertEmail });
      return 0;
    }),
    // Support's e-mails the relay turned away (support/outbox.ts).
    sweep('support_emails', () => sendDueSupportEmails(db, deps.mailer)),
    sweep('alerts', () => alerts.sweep()),
    // eSIMs with automatic top-ups on whose usage nobody read for a while: read now, so a lost notification never leaves one to run out.
    {
      name: 'auto_top_up_usage',
      everyMs: deps.sweepEveryMs?.auto_top_up_usage ?? deps.timing?.autoTopUpUsage?.everyMs ?? AUTO_TOP_UP.usageSweepEveryMs,
      run: async () => {
        const unread = await deps.autoTopUps.unreadWatched(deps.timing?.autoTopUpUsage?.maxAgeMs ?? AUTO_TOP_UP.usageMaxAgeMs);
        if (unread.length > 0) await alerts.readUsage(unread);
        return unread.length;
      },
    },
  ];
  const leaseMs = deps.timing?.sweepLeaseMs;
  return async () => (await runDueSweeps(db, before, leaseMs)) + (await fulfilment.runDue()) + (await runDueSweeps(db, after, leaseMs));
}

export interface ReconcileTiming {
  partnerOrphans?: { everyMs: number; settleMs: number };
  /** eSIMs with automatic top-ups on: looked for this often, read when unread this long (default AUTO_TOP_UP's). */
  autoTopUpUsage?: { everyMs: number; maxAgeMs: number };
  sweepLeaseMs?: number;
}

export type SweepName =
  | 'sales_pause'
  | 'checkout_sync'
  | 'auto_top_ups'
  | 'checkout_expiry'
  | 'payment_mismatches'
  | 'charge_facts'
  | 'refunded_order_writes'
  | 'partner_orphans'
  | 'balance_alert'
  | 'support_emails'
  | 'alerts'
  | 'auto_top_up_usage';

/**
 * The reconcile job on a timer (locally; production calls POST /jobs/reconcile on a schedule): one
 * run at a time. `settled` waits for the deliveries a run started, for a clean stop.
 */
export function startReconcileTimer(
  job: () => Promise<number>,
  settled: () => Promise<void>,
  everyMs: number,
): { stop: () => Promise<void> } {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (stopped) return;
    current = current.then(job).catch((error: unknown) => console.error('reconcile', error));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
      await settled();
    },
  };
}

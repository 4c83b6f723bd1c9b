import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDrivers } from '../../../tests/support/databases.ts';
import type { AlertKind, PushMessage } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Db } from '../db/db.types.ts';
import { createEsimStore } from '../esims/store.ts';
import type { MailMessage } from '../mail/mailer.types.ts';
import type { EsimPartner, EsimUsage } from '../partner/partner.types.ts';
import { ALERT_SEND_ATTEMPTS, ALERT_SENDS_AT_ONCE } from '../../config/constants.ts';
import type { PushSendResult } from '../push/sender.types.ts';
import { createAlerts } from './alerts.ts';
import { ESIM_ACCESS } from '../partner/registry.ts';
import { esimAccessOnly } from '../../../tests/support/delivery-stand-ins.ts';
import { createAlertPreferences } from './preferences.ts';

/**
 * The alerts engine on the database (issue 23): each alert claimed once however many checks race,
 * a top-up's new round, nothing once a refund is under way, a failed send kept pending and sent by
 * the sweep (or dropped if it should no longer go), hints read in one batch, a lost 'ready' timer.
 */
const GB = 2 ** 30;
const HOUR = 3_600_000;

describe.each(databaseDrivers())('alerts engine on $name', (driver) => {
  let db: Db;
  beforeAll(async () => {
    db = await driver.open();
  });
  afterAll(() => db.close());

  /** A delivered eSIM order of a buyer with its eSIM in use (1 GB, 10 days left), the partner's figures as given. */
  async function esimInUse(fields: { used?: number; state?: string; emailSentAgo?: number } = {}) {
    const id = randomUUID();
    const uid = `uid-${id}`;
    await db.query(
      `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, kind)
       VALUES ($1, $2, 'buyer@example.com', $3, 'jp-1gb-7d', 'JP', '{"id": "jp-1gb-7d", "topUp": true}'::jsonb, 900, 'EUR', 'de', 'esim')`,
      [id, uid, fields.state ?? 'delivered'],
    );
    // The order e-mail went this long ago (the e-mail outbox, migration 0035).
    await db.query(`INSERT INTO email_outbox (order_id, kind, sent_at) VALUES ($1, 'order', now() - $2 * interval '1 millisecond')`, [
      id,
      fields.emailSentAgo ?? 0,
    ]);
    const tranNo = `T${id.slice(0, 8)}`;
    await db.query(
      `INSERT INTO esims (partner, esim_tran_no, order_id, iccid, activation_code, smdp_address, matching_id, status, installed,
         total_bytes, used_bytes, validity_days, expires_at)
       VALUES ('esim-access', $1, $2, '8900000000000000000', 'LPA:1$smdp.example$M1', 'smdp.example', 'M1', 'active', true, $3, $4, 7,
         now() + interval '10 days')`,
      [tranNo, id, GB, fields.used ?? 0],
    );
    return { id, uid, tranNo };
  }

  /** The engine with a mailer and a push sender that record (and fail while told to), and a partner that answers usage. */
  function engine({ retryFirstWaitMs = 0 } = {}) {
    const mails: MailMessage[] = [];
    const pushes: { uid: string; message: PushMessage }[] = [];
    const usageCalls: string[][] = [];
    const figures = new Map<string, number>();
    const failing = { mail: false, push: false };
    /** Pushes wait for `open` (a push service that does not answer until the test says), counted while they wait. */
    const pushGate = { open: Promise.resolve(), waiting: 0, mostAtOnce: 0 };
    const partner = {
      async usage(esimTranNos: readonly string[]): Promise<EsimUsage[]> {
        usageCalls.push([...esimTranNos]);
        return esimTranNos.map((esimTranNo) => ({ esimTranNo, usedBytes: figures.get(esimTranNo) ?? 0, totalBytes: GB, measuredAt: null }));
      },
    } as EsimPartner;
    const alerts = createAlerts({
      db,
      esims: createEsimStore(db),
      partners: esimAccessOnly(partner),
      mailer: {
        async send(message) {
          if (failing.mail) throw new Error('relay down');
          mails.push(message);
          return { messageId: `m${mails.length}` };
        },
        close() {},
      },
      push: {
        publicKey: 'k',
        accepts: () => true,
        async sendToUser(uid: string, message: (lang: Locale) => PushMessage): Promise<PushSendResult> {
          pushGate.mostAtOnce = Math.max(pushGate.mostAtOnce, ++pushGate.waiting);
          await pushGate.open.finally(() => pushGate.waiting--);
          pushes.push({ uid, message: message('de') });
          return failing.push ? { sent: 0, dropped: 0, failed: 1 } : { sent: 1, dropped: 0, failed: 0 };
        },
      },
      preferences: createAlertPreferences(db),
      siteUrl: 'https://shop.example',
      publicApiUrl: 'https://shop.example/api',
      siteName: 'Shop',
      secret: 'test-secret',
      destinationName: () => 'Japan',
      usageBatchMs: 20,
      retryFirstWaitMs,
    });
    return { alerts, mails, pushes, usageCalls, figures, failing, pushGate };
  }

  /** An eSIM at eSIM Access by its id, as the alerts are told of it. */
  const at = (tranNo: string) => ({ partner: ESIM_ACCESS, esim_tran_no: tranNo });
  const records = (tranNo: string) =>
    db.query<{ kind: AlertKind; round: string; email_state: string; push_state: string; attempts: number }>(
      'SELECT kind, round, email_state, push_state, attempts FROM esim_alerts WHERE esim_tran_no = $1 ORDER BY created_at, kind',
      [tranNo],
    );

  it('claims each alert once however many checks race for it', async () => {
    const { alerts, mails, pushes } = engine();
    const { tranNo, uid } = await esimInUse({ used: Math.round(0.85 * GB) });
    await Promise.all([alerts.check([at(tranNo)]), alerts.check([at(tranNo)]), alerts.check([at(tranNo), at(tranNo)])]);
    await alerts.check([at(tranNo)]);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(pushes).toEqual([{ uid, message: expect.objectContaining({ kind: 'data_80', lang: 'de' }) as unknown }]);
    expect(await records(tranNo)).toEqual([{ kind: 'data_80', round: 'data:0', email_state: 'sent', push_state: 'sent', attempts: 0 }]);
  });

  it('sends the data alerts again after a top-up, in a new round', async () => {
    const { alerts, mails } = engine();
    const { tranNo } = await esimInUse({ used: Math.round(0.85 * GB) });
    await alerts.check([at(tranNo)]);
    await createEsimStore(db).recordTopUp(db, at(tranNo), {
      totalBytes: 2 * GB,
      usedBytes: Math.round(0.85 * GB),
      validityDays: 14,
      expiresAt: null,
    });
    await alerts.check([at(tranNo)]);
    expect(mails).toHaveLength(1);
    await db.query('UPDATE esims SET used_bytes = $2 WHERE esim_tran_no = $1', [tranNo, Math.round(1.7 * GB)]);
    await alerts.check([at(tranNo)]);
    expect((await records(tranNo)).map((r) => `${r.kind} ${r.round}`)).toEqual(['data_80 data:0', 'data_80 data:1']);
    expect(mails).toHaveLength(2);
  });

  it('sends nothing once a refund is asked for, and drops a pending send whose order was refunded meanwhile', async () => {
    const { alerts, mails, pushes, failing } = engine();
    const asked = await esimInUse({ used: GB, state: 'refund_requested' });
    await alerts.check([at(asked.tranNo)]);
    expect(await records(asked.tranNo)).toEqual([]);

    const later = await esimInUse({ used: GB });
    failing.mail = true;
    await alerts.check([at(later.tranNo)]);
    expect(await records(later.tranNo)).toEqual([
      { kind: 'data_used_up', round: 'data:0', email_state: 'pending', push_state: 'sent', attempts: 1 },
    ]);
    failing.mail = false;
    await db.query(`UPDATE orders SET state = 'refunded' WHERE id = $1`, [later.id]);
    await alerts.sweep();
    await alerts.settle();
    expect(mails).toEqual([]);
    expect(pushes).toHaveLength(1);
    expect((await records(later.tranNo))[0]).toMatchObject({ email_state: 'skipped' });
  });

  it('keeps a failed e-mail pending, with why, and the sweep sends it once; one turned off meanwhile is skipped', async () => {
    const { alerts, mails, failing } = engine();
    const { tranNo } = await esimInUse({ used: Math.round(0.9 * GB) });
    const other = await esimInUse({ used: Math.round(0.9 * GB) });
    failing.mail = true;
    await alerts.check([at(tranNo), at(other.tranNo)]);
    const [why] = await db.query<{ last_error: string }>('SELECT last_error FROM esim_alerts WHERE esim_tran_no = $1', [tranNo]);
    expect(why!.last_error).toContain('relay down');
    failing.mail = false;
    await createAlertPreferences(db).turn(other.uid, 'data_80', 'email', false);
    await alerts.sweep();
    await alerts.settle();
    await alerts.sweep();
    await alerts.settle();
    expect(mails.map((m) => m.to)).toEqual(['buyer@example.com']);
    expect((await records(tranNo))[0]).toMatchObject({ email_state: 'sent', attempts: 1 });
    expect((await records(other.tranNo))[0]).toMatchObject({ email_state: 'skipped' });
  });

  it('reads the hints of a moment in one usage call, stores the figures and checks them', async () => {
    const { alerts, mails, usageCalls, figures } = engine();
    const esims = await Promise.all([esimInUse(), esimInUse(), esimInUse()]);
    for (const { tranNo } of esims) figures.set(tranNo, Math.round(0.95 * GB));
    for (const { tranNo } of [...esims, ...esims]) alerts.usageHint({ partner: ESIM_ACCESS, esim_tran_no: tranNo });
    await new Promise((r) => setTimeout(r, 100));
    await alerts.settle();
    expect(usageCalls).toEqual([esims.map((e) => e.tranNo)]);
    expect(mails).toHaveLength(3);
  });

  it('sends "1 day left" from the sweep for an eSIM in its last day that no notification raised, once, without asking the partner', async () => {
    const { alerts, mails, usageCalls } = engine();
    const ending = await esimInUse();
    const later = await esimInUse();
    await db.query(
      "UPDATE esims SET expires_at = date_trunc('second', now()) + interval '20 hours 0.123 seconds' WHERE esim_tran_no = $1",
      [ending.tranNo],
    );
    expect(await alerts.sweep()).toBe(1);
    await alerts.settle();
    // Claimed for that end (to the millisecond): the next sweep does not even look at it again.
    expect(await alerts.sweep()).toBe(0);
    await alerts.settle();
    expect(mails.map((m) => m.to)).toEqual(['buyer@example.com']);
    expect((await records(ending.tranNo)).map((r) => r.kind)).toEqual(['validity_1_day']);
    expect(await records(later.tranNo)).toEqual([]);
    expect(usageCalls).toEqual([]);
  });

  it('pushes "ready" from the sweep when a restart lost its timer, only for an eSIM not seen since', async () => {
    const { alerts, pushes } = engine();
    const lost = await esimInUse({ emailSentAgo: 5 * 60_000 });
    const seen = await esimInUse({ emailSentAgo: 5 * 60_000 });
    const stale = await esimInUse({ emailSentAgo: 2 * HOUR });
    await alerts.seen([{ id: seen.id, kind: 'esim', state: 'delivered' }]);
    await alerts.sweep();
    await alerts.settle();
    await alerts.sweep();
    await alerts.settle();
    expect(pushes.map((p) => [p.uid, p.message.kind, p.message.url])).toEqual([[lost.uid, 'esim_ready', '/de/my-esim']]);
    expect(await records(stale.tranNo)).toEqual([]);
  });

  it(`retries a failed send after 1, 2, 4 … minutes and gives it up after ${ALERT_SEND_ATTEMPTS} attempts, with why`, async () => {
    const { alerts, pushes, failing } = engine({ retryFirstWaitMs: 60_000 });
    failing.push = true;
    const { tranNo, uid } = await esimInUse({ used: Math.round(0.85 * GB) });
    await alerts.check([at(tranNo)]);
    const row = async () =>
      (
        await db.query<{ attempts: number; email_state: string; push_state: string; last_error: string; wait_ms: number }>(
          `SELECT attempts, email_state, push_state, last_error,
             (extract(epoch FROM next_attempt_at - updated_at) * 1000)::float8 AS wait_ms
           FROM esim_alerts WHERE esim_tran_no = $1`,
          [tranNo],
        )
      )[0]!;
    const waitsInMinutes: number[] = [];
    for (let attempt = 1; attempt < ALERT_SEND_ATTEMPTS; attempt++) {
      expect(await row()).toMatchObject({ attempts: attempt, email_state: 'sent', push_state: 'pending' });
      waitsInMinutes.push((await row()).wait_ms / 60_000);
      // Before its wait is over the job leaves it alone.
      await alerts.sweep();
      await alerts.settle();
      expect((await row()).attempts).toBe(attempt);
      // The wait over:
      await db.query('UPDATE esim_alerts SET next_attempt_at = now() WHERE esim_tran_no = $1', [tranNo]);
      await alerts.sweep();
      await alerts.settle();
    }
    expect(waitsInMinutes).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(await row()).toMatchObject({
      attempts: ALERT_SEND_ATTEMPTS,
      email_state: 'sent',
      push_state: 'given_up',
      last_error: `given up after ${ALERT_SEND_ATTEMPTS} attempts: push: 1 device(s) failed`,
    });
    // Never again, however long the job keeps coming.
    await db.query(`UPDATE esim_alerts SET next_attempt_at = now() - interval '1 hour' WHERE esim_tran_no = $1`, [tranNo]);
    await alerts.sweep();
    await alerts.settle();
    expect(pushes.filter((p) => p.uid === uid)).toHaveLength(ALERT_SEND_ATTEMPTS);
  });

  it(`answers the job before the sends it starts are done, and sends ${ALERT_SENDS_AT_ONCE} alerts at once, the others after`, async () => {
    const { alerts, pushes, failing, pushGate } = engine();
    failing.push = true;
    const esims = await Promise.all(Array.from({ length: ALERT_SENDS_AT_ONCE + 2 }, () => esimInUse({ used: Math.round(0.85 * GB) })));
    await alerts.check(esims.map((e) => at(e.tranNo)));
    failing.push = false;
    // A push service that does not answer until let go.
    let letGo!: () => void;
    pushGate.open = new Promise((resolve) => (letGo = resolve));
    pushGate.mostAtOnce = 0;
    const swept = alerts.sweep();
    const first = await Promise.race([swept, new Promise((r) => setTimeout(r, 1_000, 'still waiting'))]);
    expect(first).toBe(esims.length);
    await expect.poll(() => pushGate.waiting).toBe(ALERT_SENDS_AT_ONCE);
    letGo();
    await alerts.settle();
    expect(pushGate.mostAtOnce).toBe(ALERT_SENDS_AT_ONCE);
    const uids = new Set(esims.map((e) => e.uid));
    expect(pushes.filter((p) => uids.has(p.uid))).toHaveLength(2 * esims.length);
    for (const { tranNo } of esims) expect((await records(tranNo))[0]).toMatchObject({ push_state: 'sent', attempts: 1 });
  });
});

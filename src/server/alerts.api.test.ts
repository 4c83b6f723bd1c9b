import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedMessage } from '../../stand-ins/smtp/server.ts';
import { startPushServiceStandIn, type PushServiceStandIn } from '../../stand-ins/push-service/server.ts';
import { TEST_ALERTS } from '../../tests/support/alert-keys.ts';
import { signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { pushSubscriber, type PushSubscriber } from '../../tests/support/push-subscriber.ts';
import {
  offeredTopUps,
  orderRequest,
  partnerSettled,
  payOnStandIn,
  testCatalogue,
  topUpRequest,
  waitFor,
} from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { AlertUnsubscribed, CreateOrderResponse, OrderView, type AlertKind } from '../contract/shop-api.ts';
import { alertTexts, type AlertFacts } from './alerts/messages.ts';
import { PUSH_TIMEOUT_MS } from './push/sender.ts';

/**
 * Alerts over HTTP (issue 23), on PostgreSQL and PGlite: the partner stand-in's DATA_USAGE and
 * VALIDITY_USAGE reach the webhook, the API reads the usage back and sends the e-mail (read from
 * the SMTP stand-in) and the push (decrypted by the subscribed device with its own keys, from the
 * push-service stand-in), each once, in the order's language; a top-up starts the data alerts
 * again; one-click unsubscribe stops that kind's e-mails; nothing for a refunded eSIM or a deleted
 * account; 'eSIM ready' only for a buyer who did not see the delivered eSIM.
 */
const { catalogue, PLAN } = testCatalogue();
const SITE = 'http://127.0.0.1:4333';
const GIB = 2 ** 30;
/** The destination as the German order's texts name it. */
const GERMANY = 'Deutschland';

let pushService: PushServiceStandIn;
beforeAll(async () => {
  pushService = await startPushServiceStandIn({ applicationServerKey: TEST_ALERTS.vapid.publicKey });
});
afterAll(() => pushService.close());

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('alerts on $name', (driver) => {
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: SITE,
    allocationDelayMs: 200,
    // The e-mails' one-click URL reaches this API (built once its port is known).
    api: () => ({
      alerts: { ...TEST_ALERTS, readyAfterMs: 1_500, usageBatchMs: 150, publicApiUrl: `http://127.0.0.1:${bed.port}/api` },
      pushServiceStandInOrigin: pushService.url,
    }),
  });
  const { call } = bed;
  /** Figures the closing note reports: partner calls per alert, notification-to-e-mail times. */
  const figures: { calls: Record<string, number>[]; ms: number[] } = { calls: [], ms: [] };
  afterAll(() => {
    const median = [...figures.ms].sort((a, b) => a - b)[Math.floor(figures.ms.length / 2)];
    console.log(
      `alerts on ${driver.name}: partner calls per alert`,
      JSON.stringify(figures.calls),
      'notification → e-mail ms',
      figures.ms,
      'median',
      median,
    );
  });

  const readOrder = async (token: string, id: string) => OrderView.parse(await (await call(`/orders/${id}?lang=de`, { token })).json());
  const tranNo = (orderId: string) => bed.stand.partner.tranNoOfTransaction(orderId)!;
  const settle = () => bed.handler.alerts.settle();
  const mailsTo = (email: string) => bed.stand.smtp.messages.filter((m) => m.to.includes(email));

  async function buy(token: string, request = orderRequest(PLAN)) {
    const response = await call('/orders', { method: 'POST', token, body: JSON.stringify(request) });
    const created = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(created.checkoutUrl, '4242424242424242')).status).toBe(303);
    return created.order;
  }

  /** A buyer with a device subscribed to push in `deviceLang`, and an eSIM bought in German, delivered; seen on the payment page unless `seen: false`. */
  async function buyerWithEsim({
    deviceLang = 'de',
    seen = true,
    tripStartsOn,
  }: { deviceLang?: 'de' | 'fr'; seen?: boolean; tripStartsOn?: string } = {}) {
    const buyer = await signUp();
    const device = pushSubscriber(pushService, deviceLang);
    const subscribed = await call('/me/push-subscriptions', {
      method: 'POST',
      token: buyer.idToken,
      body: JSON.stringify(device.subscription),
    });
    expect(subscribed.status).toBe(204);
    const order = await buy(buyer.idToken, { ...orderRequest(PLAN), tripStartsOn });
    // The order e-mail says it is delivered without anyone looking at the order.
    await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email));
    if (seen) {
      const delivered = await waitFor(
        () => readOrder(buyer.idToken, order.id),
        (o) => o.state === 'delivered' && !!o.esim?.install,
      );
      expect(delivered.state).toBe('delivered');
    }
    return { buyer, device, order, esim: tranNo(order.id) };
  }

  /** The eSIM installed and in use, once the shop has heard so. */
  async function inUse(token: string, orderId: string) {
    bed.stand.partner.markInstalled(tranNo(orderId));
    await waitFor(
      () => readOrder(token, orderId),
      (o) => o.esim?.status === 'active',
    );
    // Until the install's notifications are all handled: the partner calls counted next are the alert's.
    await partnerSettled(bed.stand.partner);
  }

  /** What the alert says, as stored when it was due (its figures), in a language. */
  async function textsOf(esim: string, kind: AlertKind, lang: 'de' | 'fr', destination = GERMANY) {
    const [row] = await bed.db.query<{ facts: AlertFacts | string }>(
      'SELECT facts FROM esim_alerts WHERE esim_tran_no = $1 AND kind = $2 ORDER BY created_at DESC LIMIT 1',
      [esim, kind],
    );
    const facts = typeof row!.facts === 'string' ? (JSON.parse(row!.facts) as AlertFacts) : row!.facts;
    return alertTexts({ kind, lang, destinationName: destination, facts });
  }

  /** Waits until the device has received `count` pushes. */
  const pushes = (device: PushSubscriber, count: number) =>
    waitFor(
      () => Promise.resolve(device.received()),
      (list) => list.length >= count,
    );

  const alertMails = async (email: string, esim: string, kind: AlertKind) => {
    const { subject } = await textsOf(esim, kind, 'de');
    return mailsTo(email).filter((m) => m.subject === subject);
  };

  /** The one-click URL of an alert e-mail's List-Unsubscribe header (RFC 8058). */
  const listUnsubscribe = (mail: CapturedMessage) => {
    const headers = mail.raw
      .replaceAll('\r\n', '\n')
      .split('\n\n')[0]!
      .replace(/\n[ \t]+/g, '');
    expect(headers).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/im);
    return /^List-Unsubscribe:\s*<([^>]+)>$/im.exec(headers)![1]!;
  };

  /**
   * Sets the partner's figure (its DATA_USAGE notification follows) and waits for the next e-mail
   * to the buyer: answers it, the partner calls made meanwhile by endpoint, and the time from the
   * notification to the e-mail's arrival at the SMTP stand-in.
   */
  async function usageAlert(email: string, esim: string, usedBytes: number) {
    const earlier = new Set(bed.stand.smtp.messages);
    const before = bed.stand.partner.requests.length;
    const started = Date.now();
    bed.stand.partner.setUsage(esim, usedBytes);
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(email) && !earlier.has(m), 10_000);
    const ms = Date.now() - started;
    await settle();
    const calls: Record<string, number> = {};
    for (const r of bed.stand.partner.requests.slice(before)) calls[r.call] = (calls[r.call] ?? 0) + 1;
    figures.calls.push(calls);
    figures.ms.push(ms);
    return { mail, calls };
  }

  it('sends one "80 %" e-mail and one push in the order’s and the device’s language, nothing more for a second notification; then used up and 1 day left', async () => {
    const { buyer, device, order, esim } = await buyerWithEsim({ deviceLang: 'fr' });
    await inUse(buyer.idToken, order.id);

    const { mail, calls } = await usageAlert(buyer.email, esim, Math.round(0.85 * GIB));
    const push = await device.next(10_000);
    const de = await textsOf(esim, 'data_80', 'de');
    expect(mail.subject).toBe(de.subject);
    // The hint made one usage read, and nothing else of the partner.
    expect(calls).toEqual({ 'esim/usage/query': 1 });

    // The e-mail in the order's language (German), with the figures and a top-up link into checkout for this eSIM.
    expect(mail.text).toContain(de.heading);
    expect(mail.html).toContain(`${SITE}/de/checkout?topUp=${order.id}`);
    // The push in the device's language (French), naming the destination in French.
    const fr = await textsOf(esim, 'data_80', 'fr', 'Allemagne');
    expect(push).toEqual({
      kind: 'data_80',
      title: fr.pushTitle,
      body: fr.pushBody,
      url: `/fr/checkout?topUp=${order.id}`,
      tag: `data_80:${order.id}`,
      lang: 'fr',
    });
    expect(fr.pushTitle).not.toBe(de.pushTitle);

    // A second notification above 80 %: read, and nothing more sent.
    bed.stand.partner.setUsage(esim, Math.round(0.9 * GIB));
    await waitFor(
      async () =>
        (await bed.db.query<{ used_bytes: string }>('SELECT used_bytes FROM esims WHERE esim_tran_no = $1', [esim]))[0]!.used_bytes,
      (used) => Number(used) === Math.round(0.9 * GIB),
    );
    await settle();
    expect(await alertMails(buyer.email, esim, 'data_80')).toHaveLength(1);
    expect(device.received()).toHaveLength(1);

    // Used up: its own e-mail and push, urgent and kept a day.
    const usedUp = await usageAlert(buyer.email, esim, GIB);
    expect(usedUp.mail.subject).toBe((await textsOf(esim, 'data_used_up', 'de')).subject);
    await pushes(device, 2);
    expect(device.received().map((m) => m.kind)).toEqual(['data_80', 'data_used_up']);
    expect(pushService.messages.filter((m) => m.id === device.id).map((m) => [m.urgency, m.ttl])).toEqual([
      ['normal', 6 * 3600],
      ['high', 86_400],
    ]);

    // A day of validity left (VALIDITY_USAGE): the e-mail and push once, with the plan's end.
    bed.stand.partner.sendValidityUsage(esim);
    await pushes(device, 3);
    await settle();
    expect(device.received().map((m) => m.kind)).toEqual(['data_80', 'data_used_up', 'validity_1_day']);
    const lastDay = await textsOf(esim, 'validity_1_day', 'de');
    expect((await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email) && m.subject === lastDay.subject)).text).toContain(
      lastDay.heading,
    );
    // Twice from the partner: still once.
    bed.stand.partner.sendValidityUsage(esim);
    await new Promise((r) => setTimeout(r, 500));
    await settle();
    expect(device.received()).toHaveLength(3);
    expect(await alertMails(buyer.email, esim, 'validity_1_day')).toHaveLength(1);
    const states = await bed.db.query('SELECT kind, email_state, push_state FROM esim_alerts WHERE esim_tran_no = $1 ORDER BY created_at', [
      esim,
    ]);
    expect(states).toEqual(
      ['data_80', 'data_used_up', 'validity_1_day'].map((kind) => ({ kind, email_state: 'sent', push_state: 'sent' })),
    );
  });

  it('says "you’re online" at the eSIM’s first data, by e-mail and push, once (issue 32 item 3)', async () => {
    const { buyer, device, order, esim } = await buyerWithEsim({ deviceLang: 'fr' });
    await inUse(buyer.idToken, order.id);
    // Installed is not online: nothing yet.
    await settle();
    expect(device.received()).toEqual([]);

    const { mail, calls } = await usageAlert(buyer.email, esim, 5 * 2 ** 20);
    const de = await textsOf(esim, 'connected', 'de');
    expect(de.subject).toContain(GERMANY);
    expect(mail.subject).toBe(de.subject);
    expect(mail.text).toContain(de.heading);
    expect(mail.html).toContain(`${SITE}/de/my-esim`);
    expect(calls).toEqual({ 'esim/usage/query': 1 });
    const fr = await textsOf(esim, 'connected', 'fr', 'Allemagne');
    expect(await device.next(10_000)).toEqual({
      kind: 'connected',
      title: fr.pushTitle,
      body: fr.pushBody,
      url: '/fr/my-esim',
      tag: `connected:${order.id}`,
      lang: 'fr',
    });

    // More data later: read, and nothing more said.
    bed.stand.partner.setUsage(esim, 50 * 2 ** 20);
    await waitFor(
      async () =>
        (await bed.db.query<{ used_bytes: string }>('SELECT used_bytes FROM esims WHERE esim_tran_no = $1', [esim]))[0]!.used_bytes,
      (used) => Number(used) === 50 * 2 ** 20,
    );
    await settle();
    expect(await alertMails(buyer.email, esim, 'connected')).toHaveLength(1);
    expect(device.received()).toHaveLength(1);
  });

  it('sends the get-connected checklist once to an eSIM with no data the day after the trip start the buyer gave', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const { buyer, device, order, esim } = await buyerWithEsim({ tripStartsOn: today });
    const stored = async () =>
      (
        await bed.db.query<{ trip_starts_on: string | null }>('SELECT trip_starts_on FROM order_travellers WHERE order_id = $1', [order.id])
      )[0]!.trip_starts_on;
    expect(await stored()).toBe(today);
    // The trip has not begun yet: nothing to look at.
    await bed.handler.alerts.sweep();
    await settle();
    expect(device.received()).toEqual([]);

    // Two days later (the trip start moved back instead of the clock): one usage read, then the checklist.
    await bed.db.query(`UPDATE order_travellers SET trip_starts_on = to_char(current_date - 2, 'YYYY-MM-DD') WHERE order_id = $1`, [
      order.id,
    ]);
    await bed.db.query(`UPDATE esims SET usage_checked_at = now() - interval '2 days' WHERE esim_tran_no = $1`, [esim]);
    const before = bed.stand.partner.requests.length;
    expect(await bed.handler.alerts.sweep()).toBe(1);
    await settle();
    expect(bed.stand.partner.requests.slice(before).map((r) => r.call)).toEqual(['esim/usage/query']);
    const de = await textsOf(esim, 'not_connected', 'de');
    const mail = await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email) && m.subject === de.subject);
    expect(mail.text).toContain(de.heading);
    expect(mail.html).toContain(`${SITE}/de/my-esim`);
    expect((await device.next(10_000)).kind).toBe('not_connected');

    // Told once: the job neither reads nor sends again.
    const after = bed.stand.partner.requests.length;
    expect(await bed.handler.alerts.sweep()).toBe(0);
    await settle();
    expect(bed.stand.partner.requests.length).toBe(after);
    expect(await alertMails(buyer.email, esim, 'not_connected')).toHaveLength(1);
  });

  it('refuses a trip start more than a year ahead', async () => {
    const buyer = await signUp();
    const far = new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 10);
    const response = await call('/orders', {
      method: 'POST',
      token: buyer.idToken,
      body: JSON.stringify({ ...orderRequest(PLAN), tripStartsOn: far }),
    });
    expect(response.status).toBe(400);
  });

  it('starts the data alerts again after a top-up; one-click unsubscribe stops that kind’s e-mails only', async () => {
    const { buyer, device, order, esim } = await buyerWithEsim();
    await inUse(buyer.idToken, order.id);
    const first = await usageAlert(buyer.email, esim, Math.round(0.85 * GIB));
    expect(first.mail.subject).toBe((await textsOf(esim, 'data_80', 'de')).subject);

    // One click in the mail program: a POST of List-Unsubscribe=One-Click to the header's URL.
    const unsubscribed = await fetch(listUnsubscribe(first.mail), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribed.status).toBe(200);
    expect(AlertUnsubscribed.parse(await unsubscribed.json())).toEqual({ kind: 'data_80' });

    // A top-up adds data: a new round, so 85 % of the new total is a new "80 %" alert, pushed but no longer e-mailed.
    const [step] = await offeredTopUps(bed.api.url, buyer.idToken, order.id);
    const topUp = await buy(buyer.idToken, topUpRequest(step!, order.id));
    const done = await waitFor(
      () => readOrder(buyer.idToken, topUp.id),
      (o) => o.state === 'delivered',
      15_000,
    );
    const total = done.esim!.usage!.totalBytes;
    expect(total).toBeGreaterThan(GIB);
    bed.stand.partner.setUsage(esim, Math.ceil(0.85 * total));
    await pushes(device, 2);
    await settle();
    expect(device.received().map((m) => m.kind)).toEqual(['data_80', 'data_80']);
    expect(
      await bed.db.query('SELECT round, email_state, push_state FROM esim_alerts WHERE esim_tran_no = $1 ORDER BY created_at', [esim]),
    ).toEqual([
      { round: 'data:0', email_state: 'sent', push_state: 'sent' },
      { round: 'data:1', email_state: 'skipped', push_state: 'sent' },
    ]);
    const again = await textsOf(esim, 'data_80', 'de');
    expect(mailsTo(buyer.email).filter((m) => m.subject === first.mail.subject || m.subject === again.subject)).toHaveLength(1);
    // Another kind still comes by e-mail.
    const usedUp = await usageAlert(buyer.email, esim, total);
    expect(usedUp.mail.subject).toBe((await textsOf(esim, 'data_used_up', 'de')).subject);
  });

  it('pushes "eSIM ready" to a buyer who left the payment page before the eSIM came, and not to one who saw it', async () => {
    const away = await buyerWithEsim({ seen: false });
    const push = await away.device.next(10_000);
    expect(push).toEqual({
      kind: 'esim_ready',
      title: (await textsOf(away.esim, 'esim_ready', 'de')).pushTitle,
      body: (await textsOf(away.esim, 'esim_ready', 'de')).pushBody,
      url: '/de/my-esim',
      tag: `esim_ready:${away.order.id}`,
      lang: 'de',
    });
    // No e-mail of its own: the order e-mail carried the eSIM.
    expect(mailsTo(away.buyer.email)).toHaveLength(1);

    const there = await buyerWithEsim();
    await new Promise((r) => setTimeout(r, 2_000));
    await settle();
    expect(there.device.received()).toEqual([]);
    expect(await bed.handler.alerts.sweep()).toBe(0);
    expect(there.device.received()).toEqual([]);
  });

  it('sends nothing about a refunded eSIM, not even "ready"', async () => {
    const { buyer, device, order, esim } = await buyerWithEsim({ seen: false });
    const refunded = await call(`/esims/${order.id}/refund?lang=de`, { method: 'POST', token: buyer.idToken });
    expect(refunded.status).toBe(200);
    await waitFor(
      async () => (await bed.db.query<{ state: string }>('SELECT state FROM orders WHERE id = $1', [order.id]))[0]!.state,
      (state) => state === 'refunded',
    );
    // The partner's figures come anyway (a late hint): nothing is due for a refunded eSIM.
    await bed.db.query('UPDATE esims SET used_bytes = total_bytes WHERE esim_tran_no = $1', [esim]);
    bed.handler.alerts.usageHint({ partner: 'esim-access', esim_tran_no: esim });
    await bed.handler.alerts.check([{ partner: 'esim-access', esim_tran_no: esim }]);
    await new Promise((r) => setTimeout(r, 2_000));
    await bed.handler.alerts.sweep();
    await settle();
    expect(device.received()).toEqual([]);
    expect(await bed.db.query('SELECT kind FROM esim_alerts WHERE esim_tran_no = $1', [esim])).toEqual([]);
    expect(mailsTo(buyer.email).map((m) => m.subject)).toHaveLength(2); // the order and the refund
  });

  it('sends nothing about the eSIM of an account that was deleted', async () => {
    const { buyer, device, order, esim } = await buyerWithEsim();
    await inUse(buyer.idToken, order.id);
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    const mails = mailsTo(buyer.email).length;
    bed.stand.partner.setUsage(esim, GIB);
    await waitFor(
      async () => (await bed.db.query('SELECT kind FROM esim_alerts WHERE esim_tran_no = $1', [esim])).length,
      (n) => n > 0,
    );
    await settle();
    expect(await bed.db.query('SELECT kind, email_state, push_state FROM esim_alerts WHERE esim_tran_no = $1', [esim])).toEqual([
      { kind: 'data_used_up', email_state: 'skipped', push_state: 'skipped' },
    ]);
    expect(mailsTo(buyer.email)).toHaveLength(mails);
    expect(pushService.messages.filter((m) => m.id === device.id)).toEqual([]);
  });

  it('does not hold up the reconcile job while a push service takes the message and never answers; the e-mail goes, the push is tried later', async () => {
    const { buyer, device, esim } = await buyerWithEsim();
    pushService.setAnswer(device.id, 'hang');
    // Installed, in its last day: the job's sweep raises '1 day left' (no partner call).
    await bed.db.query(`UPDATE esims SET installed = true, expires_at = now() + interval '20 hours' WHERE esim_tran_no = $1`, [esim]);
    const started = performance.now();
    expect(await bed.handler.reconcile()).toBeGreaterThanOrEqual(1);
    const reconcileMs = performance.now() - started;
    // The push reached the push service, which holds it.
    await pushService.waitFor((m) => m.id === device.id && m.status === 'hang', 5_000);
    const lastDay = await textsOf(esim, 'validity_1_day', 'de');
    await bed.stand.smtp.waitFor((m) => m.to.includes(buyer.email) && m.subject === lastDay.subject);
    const settling = performance.now();
    await settle();
    const sendMs = performance.now() - started;
    console.log(
      `alerts on ${driver.name}: reconcile answered in ${Math.round(reconcileMs)} ms while the push hung; the send gave up after ${Math.round(sendMs)} ms (settle waited ${Math.round(performance.now() - settling)} ms)`,
    );
    expect(reconcileMs).toBeLessThan(1_000);
    // The push was still waiting for its answer long after the job had answered.
    expect(sendMs).toBeGreaterThanOrEqual(PUSH_TIMEOUT_MS);
    expect(
      await bed.db.query('SELECT email_state, push_state, attempts, last_error FROM esim_alerts WHERE esim_tran_no = $1 AND kind = $2', [
        esim,
        'validity_1_day',
      ]),
    ).toEqual([{ email_state: 'sent', push_state: 'pending', attempts: 1, last_error: 'push: 1 device(s) failed' }]);
  });
});

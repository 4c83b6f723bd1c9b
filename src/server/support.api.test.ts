import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signIn, signUp } from '../../tests/support/auth-accounts.ts';
import { databaseDrivers } from '../../tests/support/databases.ts';
import { orderRequest, payOnStandIn, testCatalogue, waitFor } from '../../tests/support/shop-api.ts';
import { shopTestBed } from '../../tests/support/shop-test-bed.ts';
import { OPS_LIST_LIMIT } from '../config/constants.ts';
import { PROVIDER } from '../config/provider.ts';
import { OpsActionResult, OpsDashboard, OpsSupportList, type OpsRole } from '../contract/ops-api.ts';
import { ApiError, CreateOrderResponse, OrderView } from '../contract/shop-api.ts';
import { SupportCreated, SupportForm, SupportList, SupportView, type SupportRequest } from '../contract/support-api.ts';
import { firebaseAccounts } from './auth.ts';
import { sendDueSupportEmails } from './support/outbox.ts';

/**
 * Support that sees the order (issue 32 item 4) over HTTP on PostgreSQL and PGlite: a request from a
 * signed-in buyer about their eSIM (the diagnosis attached) or from a visitor, the spam check and the
 * limits, the confirmation and the provider's notice by e-mail, a stranger refused, and in the back
 * office the inbox, a reply e-mailed in the buyer's language and on their profile, closing, reopening
 * by a follow-up, and the dashboard's counts.
 */
const { catalogue, PLAN } = testCatalogue();
const accounts = firebaseAccounts('demo-esim');
const FORM_MIN_MS = 300;
/** TRUSTED_PROXIES as the service is deployed (deploy/cloud-run-service.yaml): the tests count clients as production does. */
const DEPLOYED_TRUSTED_PROXIES = Number(
  /name: TRUSTED_PROXIES\s+value: '(\d+)'/.exec(readFileSync(new URL('../../deploy/cloud-run-service.yaml', import.meta.url), 'utf8'))![1],
);
/** The limits these tests run with: the shop-wide cap out of the way except where a test lowers it. */
const LIMITS = { supportPerHour: 3, supportPerRecipientPerDay: 3, supportUnprovenPerHour: 1000 };

async function staff(role: OpsRole) {
  const account = await signUp();
  await accounts.setRole(account.uid, role);
  return { ...account, ...(await signIn(account.email)) };
}

describe.each(databaseDrivers({ only: 'PostgreSQL' }))('support requests on $name', (driver) => {
  const bed = shopTestBed(driver, {
    catalogue,
    siteUrl: 'http://127.0.0.1:4336',
    allocationDelayMs: 100,
    api: () => ({ supportFormMinMs: FORM_MIN_MS, trustedProxies: DEPLOYED_TRUSTED_PROXIES, limits: LIMITS }),
  });
  const { call } = bed;
  const post = (path: string, body: unknown, token?: string) =>
    call(path, { method: 'POST', body: JSON.stringify(body), ...(token && { token }) });

  /** A form token as the page gets it, old enough to send. */
  async function formToken() {
    const token = SupportForm.parse(await (await call('/support/form')).json()).formToken;
    await new Promise((resolve) => setTimeout(resolve, FORM_MIN_MS + 50));
    return token;
  }
  async function request(fields: Partial<SupportRequest>, token?: string) {
    return post('/support', { message: 'My eSIM shows no signal in Berlin.', lang: 'en', formToken: await formToken(), ...fields }, token);
  }
  /** `n` form tokens, old enough to send (asked for together: one wait for all). */
  async function formTokens(n: number) {
    const tokens = await Promise.all(
      Array.from({ length: n }, async () => SupportForm.parse(await (await call('/support/form')).json()).formToken),
    );
    await new Promise((resolve) => setTimeout(resolve, FORM_MIN_MS + 50));
    return tokens;
  }
  /** A request straight to the service (its run.app address), with whatever X-Forwarded-For the caller writes. */
  const direct = (forwardedFor: string, body: Partial<SupportRequest> & { formToken: string }, idToken?: string) =>
    call('/support', {
      method: 'POST',
      headers: { 'X-Forwarded-For': forwardedFor },
      body: JSON.stringify({ message: 'Your parcel is held: pay the fee at https://phish.example/pay', lang: 'en', ...body }),
      ...(idToken && { token: idToken }),
    });
  const clearLimits = (prefix: string) => bed.db.query('DELETE FROM rate_limits WHERE key LIKE $1', [`${prefix}%`]);

  async function deliveredOrder() {
    const buyer = await signUp();
    const response = await call('/orders', { method: 'POST', token: buyer.idToken, body: JSON.stringify(orderRequest(PLAN)) });
    const { order, checkoutUrl } = CreateOrderResponse.parse(await response.json());
    expect((await payOnStandIn(checkoutUrl, '4242424242424242')).status).toBe(303);
    const delivered = await waitFor(
      async () => OrderView.parse(await (await call(`/orders/${order.id}`, { token: buyer.idToken })).json()),
      (o) => o.state === 'delivered' && !!o.esim?.install,
    );
    return { buyer, order: delivered };
  }
  const mailTo = (address: string, subject: RegExp) =>
    bed.stand.smtp.waitFor((m) => m.to.includes(address) && subject.test(m.subject), 10_000);

  it('takes a buyer’s request about their eSIM with its diagnosis, confirms it in their language and tells the provider', async () => {
    const { buyer, order } = await deliveredOrder();
    const sent = await request(
      { orderId: order.id, phone: 'ios', cause: 'no_data', lang: 'de', message: 'Keine Daten seit der Installation.' },
      buyer.idToken,
    );
    expect(sent.status).toBe(201);
    const { id, reference } = SupportCreated.parse(await sent.json());
    expect(reference).toMatch(/^SR-[0-9A-F]{8}$/);

    const confirmation = await mailTo(buyer.email, new RegExp(reference));
    expect(confirmation.subject).toBe(`Wir haben Ihre Anfrage ${reference} erhalten`);
    expect(confirmation.text).toContain('Keine Daten seit der Installation.');
    const notice = await mailTo(PROVIDER.supportEmail, new RegExp(reference));
    expect(notice.text).toContain('no_data');
    expect(notice.text).toContain(buyer.email);

    const [stored] = await bed.db.query<{ diagnosis: Record<string, unknown>; esim_tran_no: string | null; uid: string }>(
      'SELECT diagnosis, esim_tran_no, uid FROM support_requests WHERE id = $1',
      [id],
    );
    expect(stored!.uid).toBe(buyer.uid);
    expect(stored!.esim_tran_no).toBeTruthy();
    expect(stored!.diagnosis).toMatchObject({
      phone: 'ios',
      cause: 'no_data',
      orderState: 'delivered',
      plan: expect.any(String),
      esimStatus: 'ready',
    });
    expect(stored!.diagnosis).toHaveProperty('totalBytes');
    // The activation code is a credential: never in the request.
    expect(JSON.stringify(stored!.diagnosis)).not.toContain('LPA:');

    const mine = SupportList.parse(await (await call('/support', { token: buyer.idToken })).json());
    expect(mine.requests).toHaveLength(1);
    expect(mine.requests[0]).toMatchObject({ id, state: 'open', orderNumber: order.number, messages: [{ author: 'buyer' }] });
  });

  it('keeps the e-mails the mail relay turned away and sends them again, once, from the reconcile job', async () => {
    const buyer = await signUp();
    bed.stand.smtp.setDown(true);
    let sent: Response;
    try {
      sent = await request({}, buyer.idToken);
    } finally {
      bed.stand.smtp.setDown(false);
    }
    // Taken all the same: the request is stored, its e-mails wait.
    expect(sent.status).toBe(201);
    const { reference } = SupportCreated.parse(await sent.json());
    const about = (m: { subject: string; text: string }) => m.subject.includes(reference) || m.text.includes(reference);
    expect(bed.stand.smtp.messages.filter(about)).toEqual([]);
    const mailer = bed.stand.options.mailer!;
    // Not before their time (a minute after the failed try), then both, then nothing more.
    expect(await sendDueSupportEmails(bed.db, mailer)).toBe(0);
    await bed.db.query('UPDATE support_emails SET next_attempt_at = now() WHERE sent_at IS NULL');
    expect(await sendDueSupportEmails(bed.db, mailer)).toBe(2);
    await mailTo(buyer.email, new RegExp(reference));
    await mailTo(PROVIDER.supportEmail, new RegExp(reference));
    await bed.db.query('UPDATE support_emails SET next_attempt_at = now() WHERE sent_at IS NULL');
    expect(await sendDueSupportEmails(bed.db, mailer)).toBe(0);
    expect(bed.stand.smtp.messages.filter(about)).toHaveLength(2);
  });

  it('takes a visitor’s request by e-mail, telling nothing of the order they name', async () => {
    const { order } = await deliveredOrder();
    const email = `visitor-${randomUUID()}@example.com`;
    const sent = await request({ email, orderNumber: order.number });
    expect(sent.status).toBe(201);
    const body = await sent.json();
    expect(Object.keys(body).sort()).toEqual(['id', 'reference']);
    await mailTo(email, /SR-/);
    const [stored] = await bed.db.query<{ order_id: string; uid: string | null }>(
      'SELECT order_id, uid FROM support_requests WHERE email = $1',
      [email],
    );
    // Found for the provider's eyes only.
    expect(stored).toEqual({ order_id: order.id, uid: null });

    // A visitor without an address, or naming an order by its id: refused.
    expect((await request({})).status).toBe(400);
    expect((await request({ email: `v-${randomUUID()}@example.com`, orderId: order.id })).status).toBe(400);
  });

  it('refuses bad input, the honeypot, a form sent too soon or not ours, and a stranger’s order', async () => {
    const { order } = await deliveredOrder();
    const stranger = await signUp();
    const bad = await request({ message: 'short' }, stranger.idToken);
    expect(bad.status).toBe(400);
    expect(ApiError.parse(await bad.json()).error.message).toContain('message');
    expect((await request({ email: 'not-an-address' })).status).toBe(400);

    const spam = async (response: Response) => {
      expect(response.status).toBe(400);
      expect(ApiError.parse(await response.json()).error.code).toBe('spam_suspected');
    };
    await spam(await request({ website: 'http://spam.example' }, stranger.idToken));
    const fresh = SupportForm.parse(await (await call('/support/form')).json()).formToken;
    await spam(await post('/support', { message: 'Too fast to be a person.', lang: 'en', formToken: fresh }, stranger.idToken));
    await spam(
      await post(
        '/support',
        { message: 'A token we never signed.', lang: 'en', formToken: `${Date.now() - 10_000}.${'x'.repeat(43)}` },
        stranger.idToken,
      ),
    );

    const notTheirs = await request({ orderId: order.id }, stranger.idToken);
    expect(notTheirs.status).toBe(404);
    expect(await bed.db.query('SELECT 1 FROM support_requests WHERE uid = $1', [stranger.uid])).toHaveLength(0);
  });

  it('limits requests per account, and per address and mailbox for visitors', async () => {
    const buyer = await signUp();
    for (let i = 0; i < 3; i++) expect((await request({}, buyer.idToken)).status).toBe(201);
    const refused = await request({}, buyer.idToken);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // Visitors: one e-mail's 3, then this address's (the test's one) runs out for another e-mail too.
    const email = `limited-${randomUUID()}@example.com`;
    await bed.db.query("DELETE FROM rate_limits WHERE key LIKE 'support-hour:ip:%'");
    for (let i = 0; i < 3; i++) expect((await request({ email })).status).toBe(201);
    expect((await request({ email })).status).toBe(429);
    expect((await request({ email: `other-${randomUUID()}@example.com` })).status).toBe(429);
    await bed.db.query("DELETE FROM rate_limits WHERE key LIKE 'support-hour:ip:%'");
    expect((await request({ email: `other-${randomUUID()}@example.com` })).status).toBe(201);
    expect((await request({ email })).status).toBe(429);
  });

  it('takes each form token once: the same token again is refused as spam, and sends nothing', async () => {
    const [token] = await formTokens(1);
    const first = `once-${randomUUID()}@example.com`;
    const second = `again-${randomUUID()}@example.com`;
    expect((await direct('5.5.5.1, 35.190.0.1', { email: first, formToken: token! })).status).toBe(201);
    for (const again of [
      await direct('5.5.5.1, 35.190.0.1', { email: second, formToken: token! }),
      await direct('5.5.5.2, 35.190.0.2', { formToken: token! }, (await signUp()).idToken),
    ]) {
      expect(again.status).toBe(400);
      expect(ApiError.parse(await again.json()).error.code).toBe('spam_suspected');
    }
    await mailTo(first, /SR-/);
    expect(bed.stand.smtp.messages.filter((m) => m.to.includes(second))).toEqual([]);
    expect(await bed.db.query('SELECT 1 FROM support_requests WHERE email = $1', [second])).toHaveLength(0);
  });

  it('counts a direct caller by the address Google’s front end appended: forged X-Forwarded-For entries do not reset the limit', async () => {
    // The review's run on the service as deployed: one forged entry per request, a new recipient each time.
    await clearLimits('support-hour:ip:');
    const tokens = await formTokens(12);
    const recipients = tokens.map((_, i) => `relay-${i}-${randomUUID()}@example.com`);
    const statuses: number[] = [];
    for (const [i, formToken] of tokens.entries())
      statuses.push((await direct(`6.6.6.${i}, 35.191.0.1`, { email: recipients[i]!, formToken })).status);
    expect(statuses).toEqual([201, 201, 201, ...Array<number>(9).fill(429)]);
    await mailTo(recipients[2]!, /SR-/);
    expect(bed.stand.smtp.messages.filter((m) => recipients.some((r) => m.to.includes(r)))).toHaveLength(3);
    await clearLimits('support-hour:ip:');
  });

  it('caps what one mailbox is sent, however its address is spelled and wherever the request comes from', async () => {
    const name = `v${randomUUID().slice(0, 8)}`;
    const spellings = [
      `${name}+1@gmail.com`,
      `${name.slice(0, 3)}.${name.slice(3)}@googlemail.com`,
      `${name.toUpperCase()}@Gmail.com`,
      `${name}+4@gmail.com`,
    ];
    const tokens = await formTokens(spellings.length + 1);
    const statuses: number[] = [];
    // Each from another caller (the rightmost entry too), so only the mailbox's cap can refuse.
    for (const [i, email] of spellings.entries())
      statuses.push((await direct(`6.6.${i}.6, 35.192.${i}.1`, { email, formToken: tokens[i]! })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    // An account nobody verified, with that mailbox as its address, counts on the same cap.
    const unverified = await signUp(`${name}@gmail.com`, { emailVerified: false });
    expect((await direct('6.6.9.6, 35.192.9.1', { formToken: tokens.at(-1)! }, unverified.idToken)).status).toBe(429);
  });

  it('caps the requests to unproven addresses from everyone together in an hour, whatever the headers say', async () => {
    // The hour so far: all but 4 of the shop's requests to unproven addresses taken.
    await bed.db.query(
      `INSERT INTO rate_limits (key, points, expire) VALUES ('support-unproven-hour:all', $1, $2)
       ON CONFLICT (key) DO UPDATE SET points = EXCLUDED.points, expire = EXCLUDED.expire`,
      [LIMITS.supportUnprovenPerHour - 4, Date.now() + 3_600_000],
    );
    try {
      const tokens = await formTokens(7);
      const statuses: number[] = [];
      // Every caller and recipient new: only the shop-wide cap can refuse.
      for (const [i, formToken] of tokens.slice(0, 6).entries())
        statuses.push((await direct(`7.7.7.${i}, 35.193.1.${i}`, { email: `all-${i}-${randomUUID()}@example.com`, formToken })).status);
      expect(statuses).toEqual([201, 201, 201, 201, 429, 429]);
      // A buyer whose address is verified is not an open relay's recipient: not counted.
      const buyer = await signUp();
      expect((await direct('7.7.8.1, 35.193.2.1', { formToken: tokens[6]! }, buyer.idToken)).status).toBe(201);
    } finally {
      await clearLimits('support-unproven-hour:');
    }
  });

  it('confirms to an unproven address our fixed text and the reference only, quoting nothing the visitor wrote', async () => {
    const visitor = `quoted-${randomUUID()}@example.com`;
    const unverified = await signUp(undefined, { emailVerified: false });
    const verified = await signUp();
    const tokens = await formTokens(3);
    const phishing = 'Your parcel is held: pay the fee at https://phish.example/pay';
    const sent = [
      await direct('8.8.8.1, 35.191.3.1', { email: visitor, formToken: tokens[0]!, lang: 'de' }),
      await direct('8.8.8.2, 35.191.3.2', { formToken: tokens[1]! }, unverified.idToken),
      await direct('8.8.8.3, 35.191.3.3', { formToken: tokens[2]! }, verified.idToken),
    ];
    const [toVisitor, toUnverified, toVerified] = await Promise.all(
      sent.map(async (response, i) => {
        expect(response.status).toBe(201);
        const { reference } = SupportCreated.parse(await response.json());
        return { reference, mail: await mailTo([visitor, unverified.email, verified.email][i]!, new RegExp(reference)) };
      }),
    );
    for (const { reference, mail } of [toVisitor!, toUnverified!]) {
      for (const part of [mail.subject, mail.text, mail.html]) {
        expect(part).not.toContain('phish.example');
        expect(part).not.toContain('parcel');
      }
      expect(mail.text).toContain(reference);
    }
    expect(toVisitor!.mail.subject).toBe(`Wir haben Ihre Anfrage ${toVisitor!.reference} erhalten`);
    expect(toVisitor!.mail.text).toContain('hat jemand anderes Ihre E-Mail-Adresse in unser Formular eingegeben');
    expect(toUnverified!.mail.text).toContain('someone else entered your e-mail address');
    // The address the buyer proved theirs gets their words back; the provider reads every request.
    expect(toVerified!.mail.text).toContain(phishing);
    const notice = await mailTo(PROVIDER.supportEmail, new RegExp(toVisitor!.reference));
    expect(notice.text).toContain(phishing);
  });

  it('is answered, closed and reopened in the back office; a stranger reads nothing of it', async () => {
    const { buyer, order } = await deliveredOrder();
    const { id, reference } = SupportCreated.parse(
      await (await request({ orderId: order.id, lang: 'fr', phone: 'android' }, buyer.idToken)).json(),
    );
    const support = await staff('support');
    const admin = await staff('admin');
    const stranger = await signUp();

    // Buyers never see the inbox; a stranger never sees or writes on another's request.
    expect((await call('/ops/support', { token: buyer.idToken })).status).toBe(403);
    expect(SupportList.parse(await (await call('/support', { token: stranger.idToken })).json()).requests).toEqual([]);
    expect((await post(`/support/${id}/messages`, { message: 'Let me in on this one.' }, stranger.idToken)).status).toBe(404);
    expect((await call('/support')).status).toBe(401);

    const inbox = OpsSupportList.parse(await (await call('/ops/support?state=open', { token: support.idToken })).json());
    const seen = inbox.requests.find((r) => r.id === id)!;
    expect(seen).toMatchObject({ reference, orderId: order.id, orderNumber: order.number, email: buyer.email, lang: 'fr', visitor: false });
    expect(seen.diagnosis).toMatchObject({ phone: 'android', orderState: 'delivered' });

    // The operator writes in their own language; the e-mail around it is in the buyer's.
    const idempotencyKey = randomUUID();
    const reply = { text: 'Please turn on data roaming for the eSIM line.', idempotencyKey };
    for (let i = 0; i < 2; i++) {
      const answered = await post(`/ops/support/${id}/reply`, reply, support.idToken);
      expect(answered.status).toBe(200);
      expect(OpsActionResult.parse(await answered.json()).outcome).toBe(i === 0 ? 'done' : 'already');
    }
    const mail = await mailTo(buyer.email, new RegExp(`Notre réponse à votre demande ${reference}`));
    expect(mail.text).toContain('Please turn on data roaming for the eSIM line.');
    expect(bed.stand.smtp.messages.filter((m) => m.to.includes(buyer.email) && m.subject.startsWith('Notre réponse'))).toHaveLength(1);
    const onProfile = SupportList.parse(await (await call('/support', { token: buyer.idToken })).json()).requests[0]!;
    expect(onProfile.messages.map((m) => [m.author, m.body])).toEqual([
      ['buyer', 'My eSIM shows no signal in Berlin.'],
      ['operator', 'Please turn on data roaming for the eSIM line.'],
    ]);
    const [action] = await bed.db.query<{ operator_uid: string; order_id: string }>(
      "SELECT operator_uid, order_id FROM operator_actions WHERE action = 'support_reply' AND idempotency_key = $1",
      [idempotencyKey],
    );
    expect(action).toEqual({ operator_uid: support.uid, order_id: order.id });

    expect(
      OpsActionResult.parse(await (await post(`/ops/support/${id}/close`, { idempotencyKey: randomUUID() }, support.idToken)).json())
        .outcome,
    ).toBe('done');
    expect(
      OpsSupportList.parse(await (await call('/ops/support', { token: support.idToken })).json()).requests.map((r) => r.id),
    ).not.toContain(id);
    expect(
      OpsSupportList.parse(await (await call('/ops/support?state=closed', { token: support.idToken })).json()).requests.map((r) => r.id),
    ).toContain(id);

    // A new message from the buyer opens it again, and the provider hears of it.
    const followUp = await post(`/support/${id}/messages`, { message: 'Roaming is on, still nothing.' }, buyer.idToken);
    expect(followUp.status).toBe(200);
    expect(SupportView.parse(await followUp.json())).toMatchObject({ state: 'open', messages: [{}, {}, { author: 'buyer' }] });
    await mailTo(PROVIDER.supportEmail, new RegExp(`new message on ${reference}`));
    // The same message sent again at once (a double click): kept once, the provider told once.
    const again = await post(`/support/${id}/messages`, { message: 'Roaming is on, still nothing.' }, buyer.idToken);
    expect(again.status).toBe(200);
    expect(SupportView.parse(await again.json()).messages).toHaveLength(3);
    expect(bed.stand.smtp.messages.filter((m) => m.subject.includes(`new message on ${reference}`))).toHaveLength(1);
    expect(OpsSupportList.parse(await (await call('/ops/support', { token: support.idToken })).json()).requests.map((r) => r.id)).toContain(
      id,
    );

    // The dashboard counts the open requests and the median time to a first reply.
    const dashboard = OpsDashboard.parse(await (await call('/ops/dashboard', { token: admin.idToken })).json());
    expect(dashboard.support.open).toBeGreaterThanOrEqual(1);
    expect(dashboard.support.medianFirstReplyMinutes).not.toBeNull();
    expect((await post(`/ops/support/${randomUUID()}/reply`, { text: 'x', idempotencyKey: randomUUID() }, support.idToken)).status).toBe(
      404,
    );
  });
  it('the inbox finds any request, open or closed, by its reference, e-mail, order number or account, and says when it shows only some', async () => {
    const { buyer, order } = await deliveredOrder();
    const support = await staff('support');
    const mine = SupportCreated.parse(await (await request({ orderId: order.id }, buyer.idToken)).json());
    await post(`/ops/support/${mine.id}/close`, { idempotencyKey: randomUUID() }, support.idToken);
    const visitor = `visitor-${randomUUID()}@example.com`;
    const theirs = SupportCreated.parse(await (await request({ email: visitor })).json());
    const search = async (q: string) => {
      const answer = await call(`/ops/support?q=${encodeURIComponent(q)}`, { token: support.idToken });
      expect(answer.status).toBe(200);
      return OpsSupportList.parse(await answer.json());
    };
    const ids = async (q: string) => (await search(q)).requests.map((r) => r.id);

    // The closed one by its reference (as printed, or its 8 hex digits), its order number and its account.
    expect((await search(mine.reference)).requests).toMatchObject([{ id: mine.id, state: 'closed' }]);
    expect(await ids(mine.reference.slice(3).toLowerCase())).toEqual([mine.id]);
    expect(await ids(order.number)).toContain(mine.id);
    expect(await ids(buyer.uid)).toEqual([mine.id]);
    // The visitor's by their address, however it is typed; an address nobody wrote from finds nothing.
    expect(await ids(visitor.toUpperCase())).toEqual([theirs.id]);
    expect(await ids(`nobody-${randomUUID()}@example.com`)).toEqual([]);
    expect((await call(`/ops/support?q=${'x'.repeat(201)}`, { token: support.idToken })).status).toBe(400);

    // More from one address than a list shows: the list says there are more.
    const many = `many-${randomUUID()}@example.com`;
    await bed.db.query(
      `INSERT INTO support_requests (id, email, lang, last_buyer_message_at)
       SELECT gen_random_uuid(), $1, 'en', now() - n * interval '1 minute' FROM generate_series(1, $2::int) AS n`,
      [many, OPS_LIST_LIMIT + 1],
    );
    const found = await search(many);
    expect(found.requests).toHaveLength(OPS_LIST_LIMIT);
    expect(found.more).toBe(true);
    expect((await search(visitor)).more).toBe(false);
  });

  it('goes with the account when the buyer deletes it', async () => {
    const buyer = await signUp();
    expect((await request({}, buyer.idToken)).status).toBe(201);
    expect(await bed.db.query('SELECT 1 FROM support_requests WHERE uid = $1', [buyer.uid])).toHaveLength(1);
    expect((await call('/me', { method: 'DELETE', token: buyer.idToken })).status).toBe(204);
    expect(await bed.db.query('SELECT 1 FROM support_requests WHERE uid = $1', [buyer.uid])).toHaveLength(0);
  });
});

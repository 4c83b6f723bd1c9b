import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { clientKey } from '../../catalogue/csp-reports.ts';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import {
  SUPPORT_ERROR_CODES,
  SupportFollowUp,
  SupportRequest,
  supportReference,
  type SupportCreated,
  type SupportForm,
  type SupportList,
} from '../../contract/support-api.ts';
import type { BuyerEnv } from '../buyer-auth.ts';
import type { Db } from '../db/db.types.ts';
import { bearerToken, fail, siteCors } from '../http.ts';
import { tooManyAttempts } from '../limits.ts';
import type { LimitedRoute, UserLimiter } from '../limits.types.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { EsimRow } from '../esims/store.types.ts';
import { isUuid } from '../uuid.ts';
import { jsonBody } from '../validation.ts';
import { supportNoticeEmail, supportReceivedEmail } from './emails.ts';
import { sendSupportEmail } from './outbox.ts';
import { issueFormToken, readFormToken } from './form-token.ts';
import { mailboxKey } from './recipient.ts';
import { addBuyerMessage, createSupportRequest, requestsOf, spendFormToken } from './store.ts';

/** What support needs besides the database: the mailer, where the provider reads, the form tokens' key. */
export interface SupportDeps {
  mailer: Mailer;
  siteUrl: string;
  siteName: string;
  /** The provider's support address (PROVIDER.supportEmail): told of every request and follow-up. */
  providerEmail: string;
  /** The form tokens' key. */
  secret: string;
  /** SUPPORT_FORM_MIN_MS; tests make it short. */
  formMinMs: number;
}

export interface SupportRoutesDeps {
  db: Db;
  auth: MiddlewareHandler<BuyerEnv>;
  allowedOrigins: ReadonlySet<string>;
  trustedProxies: number | undefined;
  limits: UserLimiter;
  support: SupportDeps;
}

type Env = { Variables: Partial<BuyerEnv['Variables']> };

/**
 * Support that sees the order (issue 32 item 4), mounted at /support (src/contract/support-api.ts):
 * the form's token, a request from a signed-in buyer or a visitor, the buyer's own requests and
 * their follow-ups. A visitor is told nothing of any order: a number they give is only stored.
 */
export function supportRoutes(deps: SupportRoutesDeps) {
  const { db, limits, support } = deps;
  // The guard only when a token comes: a visitor may write too.
  const maybeSignedIn: MiddlewareHandler<Env> = (c, next) =>
    bearerToken(c) ? (deps.auth as unknown as MiddlewareHandler<Env>)(c, next) : next();
  const cors = siteCors(deps.allowedOrigins, {
    allowMethods: ['GET', 'POST'],
    allowHeaders: ['Authorization', 'Content-Type'],
    exposeHeaders: ['Retry-After'],
  });

  /** The first of the limits that refuses, as seconds to wait (the ones after it do not count the request). */
  async function limited(keys: [LimitedRoute, string][]): Promise<number | undefined> {
    for (const [route, key] of keys) {
      const wait = await limits.take(route, key);
      if (wait !== undefined) return wait;
    }
    return undefined;
  }
  const spam = (c: Context) =>
    fail(c, 400, SUPPORT_ERROR_CODES.spamSuspected, 'The form was sent too quickly, is out of date or was sent before; please try again.');

  const app = new Hono<Env>().use('*', cors);

  app.get('/form', (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ formToken: issueFormToken(support.secret) } satisfies SupportForm);
  });

  app.post('/', maybeSignedIn, ...jsonBody(SupportRequest), async (c) => {
    const body = c.req.valid('json');
    const caller = c.var.caller;
    // The spam check first: a bot learns nothing else.
    const formToken = readFormToken(support.secret, body.formToken, support.formMinMs);
    if ((body.website ?? '') !== '' || !formToken) return spam(c);
    const email = caller?.email ?? body.email;
    if (!email) return fail(c, 400, ERROR_CODES.badRequest, 'Check these fields: email.');
    if (!caller && body.orderId) return fail(c, 400, ERROR_CODES.badRequest, 'Check these fields: orderId.');

    let order: (OrderRow & { esim: EsimRow | null }) | undefined;
    if (caller && body.orderId) {
      order = await ownOrder(db, caller.uid, body.orderId);
      if (!order) return fail(c, 404, ERROR_CODES.notFound, 'No such order.');
    }
    // One request per form token, whatever its answer (issue 46 item 3): the form asks for a new one.
    if (!(await spendFormToken(db, formToken))) return spam(c);
    // An address nobody has proven (a visitor's, an account's not verified) may be anyone's: the
    // caps on its mailbox and on all such requests together hold whatever the request's headers
    // say. The caller's own limit (account, or the client address: TRUSTED_PROXIES) comes first.
    const proven = caller?.emailVerified === true;
    const wait = await limited([
      caller ? ['support', caller.uid] : ['support', `ip:${clientKey(c.req.raw, c.env, deps.trustedProxies ?? 0)}`],
      ...(proven
        ? []
        : ([
            ['supportRecipient', mailboxKey(email)],
            ['supportUnproven', 'all'],
          ] as [LimitedRoute, string][])),
    ]);
    if (wait !== undefined) return tooManyAttempts(c, wait);

    // A visitor's order number finds the order for the provider's eyes only.
    const visitorOrderId = !caller && body.orderNumber ? await orderIdOfNumber(db, body.orderNumber) : null;
    const request = await createSupportRequest(db, {
      uid: caller?.uid ?? null,
      email,
      lang: body.lang,
      orderId: order?.id ?? visitorOrderId,
      orderNumber: caller ? null : (body.orderNumber ?? null),
      esimTranNo: order?.esim?.esim_tran_no ?? null,
      diagnosis: diagnosisOf(body, order),
      message: body.message,
    });
    await sendSupportEmail(db, support.mailer, {
      requestId: request.id,
      what: 'confirmation',
      to: email,
      email: supportReceivedEmail({ request, message: body.message, proven, siteName: support.siteName, siteUrl: support.siteUrl }),
    });
    await sendSupportEmail(db, support.mailer, {
      requestId: request.id,
      what: 'provider notice',
      to: support.providerEmail,
      email: supportNoticeEmail({ request, message: body.message, siteUrl: support.siteUrl, followUp: false }),
    });
    c.header('Cache-Control', 'no-store');
    return c.json({ id: request.id, reference: supportReference(request.id) } satisfies SupportCreated, 201);
  });

  const signedIn = deps.auth as unknown as MiddlewareHandler<Env>;
  app.get('/', signedIn, async (c) => c.json({ requests: await requestsOf(db, c.var.caller!.uid) } satisfies SupportList));

  app.post('/:id/messages', signedIn, ...jsonBody(SupportFollowUp), async (c) => {
    const uid = c.var.caller!.uid;
    const id = c.req.param('id');
    const notFound = (ctx: Context) => fail(ctx, 404, ERROR_CODES.notFound, 'No such support request.');
    if (!isUuid(id)) return notFound(c);
    const wait = await limited([['support', uid]]);
    if (wait !== undefined) return tooManyAttempts(c, wait);
    const { message } = c.req.valid('json');
    const added = await addBuyerMessage(db, uid, id, message);
    if (!added) return notFound(c);
    const { request } = added;
    // A repeat of the same message (a double click) tells the provider nothing new.
    if (added.added)
      await sendSupportEmail(db, support.mailer, {
        requestId: request.id,
        what: 'provider notice',
        to: support.providerEmail,
        email: supportNoticeEmail({ request, message, siteUrl: support.siteUrl, followUp: true }),
      });
    const view = (await requestsOf(db, uid)).find((r) => r.id === id)!;
    return c.json(view);
  });

  return app;
}

/** The caller's own order (an eSIM's id is its order's) with its eSIM once allocated. */
async function ownOrder(db: Db, uid: string, id: string) {
  const [row] = await db.query<OrderRow & { esim: EsimRow | null }>(
    `SELECT o.*, (SELECT to_jsonb(e) FROM esims e WHERE e.order_id = o.id) AS esim FROM orders o WHERE o.id = $1 AND o.uid = $2`,
    [id, uid],
  );
  return row;
}

/** ES-2026-000123, ES2026000123 or 123 as typed: the order with that number, if any. */
async function orderIdOfNumber(db: Db, typed: string): Promise<string | null> {
  const digits = /(\d{1,12})\s*$/.exec(typed.replace(/[^\d]+$/, ''))?.[1];
  if (!digits) return null;
  const number = Number(digits.length > 6 && /^\d{4}/.test(digits) ? digits.slice(4) : digits);
  if (!Number.isSafeInteger(number) || number <= 0) return null;
  const [row] = await db.query<{ id: string }>('SELECT id FROM orders WHERE number = $1', [number]);
  return row?.id ?? null;
}

/** What the provider sees with the request: the page's phone and cause, the eSIM's state and usage, the plan. */
function diagnosisOf(body: SupportRequest, order: (OrderRow & { esim: EsimRow | null }) | undefined): Record<string, unknown> {
  const e = order?.esim;
  return {
    ...(body.phone && { phone: body.phone }),
    ...(body.cause && { cause: body.cause }),
    ...(order && { orderState: order.state, plan: order.plan_id, destination: order.destination }),
    ...(e && {
      iccid: e.iccid,
      esimStatus: e.status,
      installStep: e.install_step,
      installStepAt: e.install_step_at,
      usedBytes: Number(e.used_bytes),
      totalBytes: Number(e.total_bytes),
      usageCheckedAt: e.usage_checked_at,
      expiresAt: e.expires_at,
    }),
  };
}

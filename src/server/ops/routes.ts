import { Hono, type ErrorHandler } from 'hono';
import { zValidator } from '@hono/zod-validator';
import {
  OPS_ERROR_CODES,
  OpsNote,
  OpsOrderQuery,
  OpsReason,
  OpsRefund,
  OpsResend,
  type OpsAccount,
  type OpsMe,
  type OpsOrderList,
} from '../../contract/ops-api.ts';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import type { Snapshot } from '../../catalogue/schema.ts';
import type { Accounts } from '../auth.types.ts';
import type { Db } from '../db/db.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import { fail } from '../http.ts';
import { jsonBody } from '../validation.ts';
import type { AccountActions, OrderActions } from './actions.types.ts';
import { ActionKeyReused } from './action-records.ts';
import type { ActionRecords } from './action-records.types.ts';
import { dashboard } from './dashboard.ts';
import { ResendRefused } from './order-actions.ts';
import { adminOnly, opsAuth, type OpsEnv } from './ops-auth.ts';
import { accountState, orderDetail } from './order-detail.ts';
import { ordersOfAccount, searchOrders, summary } from './order-search.ts';
import { ordersCsv } from './orders-csv.ts';
import { pauseSalesByOperator, resumeSales } from '../orders/sales-pause.ts';
import { readEsimForOperator } from './esim-read.ts';
import type { SupportDeps } from '../support/routes.ts';
import { opsSupportRoutes } from './support.ts';

export interface OpsRouteDeps {
  db: Db;
  accounts: Accounts;
  allowedOrigins: ReadonlySet<string>;
  partners: Partners;
  orderActions: OrderActions;
  accountActions: AccountActions;
  actionRecords: ActionRecords;
  support: SupportDeps;
  /** The catalogue the API serves: its applied exchange rates convert the back office's figures (issue 34). */
  catalogue: Pick<Snapshot, 'exchangeRates'>;
}

const UUID = '[0-9a-fA-F-]{36}';
const queryOf = zValidator('query', OpsOrderQuery, (result, c) =>
  result.success ? undefined : fail(c, 400, ERROR_CODES.badRequest, 'Check the filters: state, from and to (YYYY-MM-DD).'),
);

/**
 * An action's key that another request used (action-records.ts): 409, nothing done. The order's
 * e-mail to an address the operator may not give (order-actions.ts): 403. Any other error goes on
 * to the app's handler.
 */
const opsErrors: ErrorHandler<OpsEnv> = (error, c) => {
  if (error instanceof ActionKeyReused) return fail(c, 409, OPS_ERROR_CODES.keyReused, error.message);
  if (error instanceof ResendRefused) return fail(c, 403, error.code, error.message);
  throw error;
};

/**
 * The back office's API, mounted at /ops (src/contract/ops-api.ts lists the routes). Every route
 * checks the caller's role on the server (ops-auth.ts); handlers translate HTTP and call the ops
 * domain (order-search, order-detail, order-actions, account-actions, dashboard, orders-csv).
 */
export function opsRoutes(deps: OpsRouteDeps) {
  const { db, accounts, orderActions: orders, accountActions: people } = deps;
  const rates = deps.catalogue.exchangeRates.applied;
  const detail = async (id: string) => orderDetail(db, accounts, deps.partners, rates, id);
  const notFound = (c: Parameters<typeof fail>[0]) => fail(c, 404, ERROR_CODES.notFound, 'There is no such order.');

  return (
    new Hono<OpsEnv>()
      .onError(opsErrors)
      .use('*', opsAuth(accounts, deps.allowedOrigins))
      .get('/me', (c) => {
        const { uid, email, role } = c.var.operator;
        return c.json({ uid, email, role } satisfies OpsMe);
      })
      // Support and admin: find, read, note, resend, retry.
      .get('/orders', queryOf, async (c) => {
        const rows = await searchOrders(db, c.req.valid('query'));
        const { partners } = deps;
        return c.json({
          orders: rows.map((row) => summary(row, partners)),
          partners: partners.ids.map((id) => ({ id, name: partners.nameOf(id) })),
        } satisfies OpsOrderList);
      })
      .get(`/orders/:id{${UUID}}`, async (c) => {
        const order = await detail(c.req.param('id'));
        return order ? c.json(order) : notFound(c);
      })
      .post(`/orders/:id{${UUID}}/esim/read`, async (c) => {
        const id = c.req.param('id');
        const read = await readEsimForOperator(db, deps.partners, id);
        if (read === 'no_order') return notFound(c);
        if (read === 'unavailable')
          return fail(c, 503, ERROR_CODES.partnerUnavailable, 'The partner did not answer; try again in a moment.');
        const order = await detail(id);
        if (!order) return notFound(c);
        return c.json({ ...order, esim: read === 'no_esim' ? order.esim : read });
      })
      .post(`/orders/:id{${UUID}}/notes`, ...jsonBody(OpsNote), async (c) =>
        c.json(await orders.note(c.var.operator, c.req.param('id'), c.req.valid('json'))),
      )
      .post(`/orders/:id{${UUID}}/resend-email`, ...jsonBody(OpsResend), async (c) =>
        c.json(await orders.resendEmail(c.var.operator, c.req.param('id'), c.req.valid('json'))),
      )
      .post(`/orders/:id{${UUID}}/retry`, ...jsonBody(OpsReason), async (c) =>
        c.json(await orders.retryDelivery(c.var.operator, c.req.param('id'), c.req.valid('json'))),
      )
      .post(`/orders/:id{${UUID}}/deliver-elsewhere`, ...jsonBody(OpsReason), async (c) =>
        c.json(await orders.deliverElsewhere(c.var.operator, c.req.param('id'), c.req.valid('json'))),
      )
      // Nothing more charged (issue 49): support may stop it, as the buyer may.
      .post(`/orders/:id{${UUID}}/auto-top-up/off`, ...jsonBody(OpsReason), async (c) =>
        c.json(await orders.turnOffAutoTopUps(c.var.operator, c.req.param('id'), c.req.valid('json'))),
      )
      .get('/accounts', async (c) => {
        const q = (c.req.query('q') ?? '').trim();
        if (!q) return fail(c, 400, ERROR_CODES.badRequest, 'Give an e-mail or a uid.');
        let account;
        try {
          account = await accounts.find(q.includes('@') ? { email: q } : { uid: q });
        } catch {
          return fail(c, 503, 'accounts_unavailable', 'The accounts service did not answer; try again.');
        }
        if (!account) return fail(c, 404, ERROR_CODES.notFound, 'There is no such account.');
        const rows = await ordersOfAccount(db, account.uid);
        return c.json({
          uid: account.uid,
          email: account.email,
          account: await accountState(accounts, account.uid),
          orders: rows.map((row) => summary(row, deps.partners)),
        } satisfies OpsAccount);
      })
      // Support and admin: the support inbox (issue 32).
      .route('/support', opsSupportRoutes(deps))
      // Admin only, from here on.
      .use('/orders/:id/refunds', adminOnly)
      .post(`/orders/:id{${UUID}}/refunds`, ...jsonBody(OpsRefund), async (c) =>
        c.json(await orders.refund(c.var.operator, c.req.param('id'), c.req.valid('json'))),
      )
      .use('/orders/:id/esim/:action', adminOnly)
      .post(`/orders/:id{${UUID}}/esim/:action{suspend|unsuspend|revoke}`, ...jsonBody(OpsReason), async (c) =>
        c.json(
          await orders.esimService(
            c.var.operator,
            c.req.param('id'),
            c.req.param('action') as 'suspend' | 'unsuspend' | 'revoke',
            c.req.valid('json'),
          ),
        ),
      )
      .use('/orders/:id/:decision{approve|reject}', adminOnly)
      .post(`/orders/:id{${UUID}}/:decision{approve|reject}`, ...jsonBody(OpsReason), async (c) =>
        c.json(
          await orders.decideHold(c.var.operator, c.req.param('id'), c.req.param('decision') as 'approve' | 'reject', c.req.valid('json')),
        ),
      )
      .use('/accounts/:uid/*', adminOnly)
      .post('/accounts/:uid/:action{block|unblock|delete}', ...jsonBody(OpsReason), async (c) => {
        const action = c.req.param('action') as 'block' | 'unblock' | 'delete';
        return c.json(await people[action](c.var.operator, c.req.param('uid'), c.req.valid('json')));
      })
      .use('/dashboard', adminOnly)
      .get('/dashboard', async (c) => c.json(await dashboard(db, deps.partners, deps.catalogue.exchangeRates)))
      .use('/reports/*', adminOnly)
      .get('/reports/orders.csv', queryOf, async (c) => {
        const { from, to } = c.req.valid('query');
        const csv = await ordersCsv(db, { ...(from && { from }), ...(to && { to }) });
        return c.body(csv, 200, {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="orders-${from ?? 'all'}-${to ?? 'now'}.csv"`,
        });
      })
      .use('/sales/*', adminOnly)
      .post('/sales/:action{pause|resume}', ...jsonBody(OpsReason), async (c) => {
        const action = c.req.param('action') as 'pause' | 'resume';
        const body = c.req.valid('json');
        return c.json(
          await deps.actionRecords.record(
            { operator: c.var.operator, action: `sales_${action}`, idempotencyKey: body.idempotencyKey, reason: body.reason },
            async (actionId) => {
              const outcome = action === 'pause' ? await pauseSalesByOperator(db, body.reason, actionId) : await resumeSales(db);
              return outcome === 'paused' || outcome === 'resumed'
                ? { outcome: 'done', detail: null }
                : { outcome: 'already', detail: outcome };
            },
          ),
        );
      })
      .all('*', (c) => fail(c, 404, ERROR_CODES.notFound, 'No such back-office route.'))
  );
}

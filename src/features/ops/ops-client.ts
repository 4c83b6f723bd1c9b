import type { z } from 'zod';
import {
  OpsAccount,
  OpsActionResult,
  OpsDashboard,
  OpsMe,
  OpsOrder,
  OpsOrderList,
  type OpsNote,
  type OpsReason,
  OpsRefund,
  type OpsResend,
  OpsSupportList,
  type OpsSupportClose,
  type OpsSupportReply,
} from '../../contract/ops-api.ts';
import type { ApiClientOptions } from '../../shop-client/shop-client.ts';

/**
 * The back office's client of the ops API (src/contract/ops-api.ts). Unlike the shop's client it
 * parses every answer with the contract's zod schemas: the back office is not budgeted like the
 * buyer's pages, and a wrong answer must never be shown as a right one. Every failure is one
 * OpsError carrying the API's error code (or 'network' / 'invalid_answer'), which the pages translate.
 */
export class OpsError extends Error {
  constructor(
    /** The API's error code ('forbidden', 'recent_login_required', 'conflict', …), or network / invalid_answer / http_<status>. */
    readonly code: string,
    readonly status: number,
    /** The API's own message: with a conflict, why the order's state does not allow it now. */
    readonly detail?: string,
  ) {
    super(`ops API: ${code}`);
    this.name = 'OpsError';
  }
}

/** The order actions that answer an OpsActionResult, as paths under /ops/orders/{id}/. */
export type OrderAction =
  | 'resend-email'
  | 'retry'
  | 'deliver-elsewhere'
  | 'refunds'
  | 'esim/suspend'
  | 'esim/unsuspend'
  | 'esim/revoke'
  | 'approve'
  | 'reject'
  | 'auto-top-up/off';
/** GET /ops/orders's query (OpsOrderQuery), only what is set. */
export interface OrdersApiQuery {
  q?: string;
  state?: string;
  from?: string;
  to?: string;
  attention?: '1';
  partner?: string;
}

export type AccountAction = 'block' | 'unblock' | 'delete';
export type SalesAction = 'pause' | 'resume';

export type OrderActionBody = OpsReason | OpsResend | z.input<typeof OpsRefund>;

export function createOpsClient({ baseUrl, idToken, fetch: fetchImpl = (...args) => fetch(...args) }: ApiClientOptions) {
  async function send(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
    let response: Response;
    try {
      const token = await idToken();
      const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
      const request: RequestInit = { method: init.method ?? 'GET', headers };
      if (init.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        request.body = JSON.stringify(init.body);
      }
      response = await fetchImpl(`${baseUrl}/ops${path}`, request);
    } catch {
      throw new OpsError('network', 0);
    }
    if (response.ok) return response;
    const body: unknown = await response.json().catch(() => undefined);
    const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    throw new OpsError(
      typeof error?.code === 'string' ? error.code : `http_${response.status}`,
      response.status,
      typeof error?.message === 'string' ? error.message : undefined,
    );
  }

  async function call<S extends z.ZodType>(schema: S, path: string, init?: { method?: string; body?: unknown }): Promise<z.infer<S>> {
    const response = await send(path, init);
    const parsed = schema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new OpsError('invalid_answer', response.status);
    return parsed.data;
  }

  const order = (id: string) => `/orders/${encodeURIComponent(id)}`;

  return {
    me: () => call(OpsMe, '/me'),
    orders: (query: OrdersApiQuery) => call(OpsOrderList, `/orders${queryString({ ...query })}`),
    order: (id: string) => call(OpsOrder, order(id)),
    /** The eSIM read again from the partner (lowest priority of the shared budget). */
    readEsim: (id: string) => call(OpsOrder, `${order(id)}/esim/read`, { method: 'POST', body: {} }),
    addNote: (id: string, body: OpsNote) => call(OpsOrder, `${order(id)}/notes`, { method: 'POST', body }),
    orderAction: (id: string, action: OrderAction, body: OrderActionBody) =>
      call(OpsActionResult, `${order(id)}/${action}`, { method: 'POST', body }),
    account: (q: string) => call(OpsAccount, `/accounts${queryString({ q })}`),
    accountAction: (uid: string, action: AccountAction, body: OpsReason) =>
      call(OpsActionResult, `/accounts/${encodeURIComponent(uid)}/${action}`, { method: 'POST', body }),
    dashboard: () => call(OpsDashboard, '/dashboard'),
    salesAction: (action: SalesAction, body: OpsReason) => call(OpsActionResult, `/sales/${action}`, { method: 'POST', body }),
    /** The support inbox (issue 32): open requests, the longest waiting first, or the closed ones; or a search in both. */
    support: (state: 'open' | 'closed', q = '') => call(OpsSupportList, `/support${queryString({ state, q: q.trim() || undefined })}`),
    supportReply: (id: string, body: OpsSupportReply) =>
      call(OpsActionResult, `/support/${encodeURIComponent(id)}/reply`, { method: 'POST', body }),
    supportClose: (id: string, body: OpsSupportClose) =>
      call(OpsActionResult, `/support/${encodeURIComponent(id)}/close`, { method: 'POST', body }),
    /** The accountant's CSV as a Blob: a plain link cannot carry the Authorization header. */
    ordersCsv: async (range: { from?: string; to?: string }) => (await send(`/reports/orders.csv${queryString(range)}`)).blob(),
  };
}

export type OpsClient = ReturnType<typeof createOpsClient>;

/** '?q=x&state=paid' from the set values only ('' when none). */
export function queryString(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

import { queryString, type OrdersApiQuery } from './ops-client.ts';

/**
 * Which screen of the back office a URL shows. One static page per language (/ops, /de/ops), the
 * screen in its query string, so every order and search has an address to bookmark, to open in a
 * new tab and to come back to with the browser's Back.
 */
export type OpsView =
  | { name: 'orders'; query: OrdersQuery }
  | { name: 'order'; id: string }
  | { name: 'accounts'; q: string }
  | { name: 'dashboard' }
  /** The support inbox (issue 32), with one request open beside its order ('' for none), open or closed ones, or a search ('' for none). */
  | { name: 'support'; id: string; closed: boolean; q: string };

/** The orders search as the form holds it: each field a string, '' when unset. */
export interface OrdersQuery {
  q: string;
  state: string;
  from: string;
  to: string;
  attention: boolean;
  /** A partner's id, '' for all. */
  partner: string;
}

export const EMPTY_ORDERS_QUERY: OrdersQuery = { q: '', state: '', from: '', to: '', attention: false, partner: '' };

export function readView(search: string): OpsView {
  const params = new URLSearchParams(search);
  const order = params.get('order');
  if (order) return { name: 'order', id: order };
  const support = params.get('support');
  if (support !== null || params.get('view') === 'support')
    return { name: 'support', id: support ?? '', closed: params.get('state') === 'closed', q: params.get('q') ?? '' };
  const view = params.get('view');
  if (view === 'accounts') return { name: 'accounts', q: params.get('q') ?? '' };
  if (view === 'dashboard') return { name: 'dashboard' };
  return {
    name: 'orders',
    query: {
      q: params.get('q') ?? '',
      state: params.get('state') ?? '',
      from: params.get('from') ?? '',
      to: params.get('to') ?? '',
      attention: params.get('attention') === '1',
      partner: params.get('partner') ?? '',
    },
  };
}

/** The query string of a screen ('' for the orders list without a search). */
export function viewSearch(view: OpsView): string {
  switch (view.name) {
    case 'order':
      return queryString({ order: view.id });
    case 'accounts':
      return queryString({ view: 'accounts', q: view.q });
    case 'dashboard':
      return '?view=dashboard';
    case 'support':
      return queryString({
        ...(view.id ? { support: view.id } : { view: 'support' }),
        state: view.closed ? 'closed' : undefined,
        q: view.q.trim() || undefined,
      });
    case 'orders':
      return queryString({ ...apiOrdersQuery(view.query) });
  }
}

/** The orders search as GET /ops/orders takes it: only what is set. */
export function apiOrdersQuery(query: OrdersQuery): OrdersApiQuery {
  const result: OrdersApiQuery = {};
  if (query.q.trim()) result.q = query.q.trim();
  if (query.state) result.state = query.state;
  if (query.from) result.from = query.from;
  if (query.to) result.to = query.to;
  if (query.attention) result.attention = '1';
  if (query.partner) result.partner = query.partner;
  return result;
}

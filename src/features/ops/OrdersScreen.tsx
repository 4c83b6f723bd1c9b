import { isTopUpOrder } from '../../contract/order-kinds.ts';
import { useId, type FormEvent } from 'react';
import { ORDER_STATES } from './order-states.ts';
import type { OpsOrderSummary } from '../../contract/ops-api.ts';
import { fill } from '../../i18n/fill.ts';
import { opsClient } from './ops-api.ts';
import { useOps } from './ops-context.ts';
import { formatMoment, formatMoney } from './ops-format.ts';
import { DateField, Load, SearchField, SelectField, ViewLink } from './OpsParts.tsx';
import { apiOrdersQuery, EMPTY_ORDERS_QUERY, viewSearch, type OrdersQuery } from './ops-view.ts';
import { useLoad } from './use-load.ts';

/** Orders (issue 30 item 3): the search and filters, kept in the address, and the list, newest first. */
export default function OrdersScreen({ query }: { query: OrdersQuery }) {
  const { m, go } = useOps();
  const [state, retry] = useLoad(() => opsClient.orders(apiOrdersQuery(query)), viewSearch({ name: 'orders', query }));
  const attentionId = useId();
  // The shop's partners, once the list has named them (the page is static; they are the server's).
  const partners = state.status === 'ready' ? state.data.partners : [];

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '');
    go({
      name: 'orders',
      query: {
        q: text('q'),
        state: text('state'),
        from: text('from'),
        to: text('to'),
        attention: data.get('attention') === '1',
        partner: text('partner'),
      },
    });
  }

  return (
    <>
      {/* key: a new address (Back, a link) shows its own search in the fields. */}
      <form
        key={viewSearch({ name: 'orders', query })}
        onSubmit={submit}
        role="search"
        className="flex flex-col gap-3 rounded-lg border border-line p-3"
      >
        <SearchField label={m.orders.search} hint={m.orders.searchHint} defaultValue={query.q} />
        <div className="flex flex-wrap items-end gap-3">
          <SelectField
            label={m.orders.state}
            name="state"
            defaultValue={query.state}
            any={m.orders.anyState}
            options={ORDER_STATES.map((s) => ({ value: s, label: m.states[s] }))}
          />
          {partners.length > 1 && (
            <SelectField
              label={m.orders.partner}
              name="partner"
              defaultValue={query.partner}
              any={m.orders.anyPartner}
              options={partners.map((p) => ({ value: p.id, label: p.name }))}
            />
          )}
          <DateField label={m.orders.from} name="from" defaultValue={query.from} />
          <DateField label={m.orders.to} name="to" defaultValue={query.to} />
          <div className="flex items-center gap-2 py-2">
            <input id={attentionId} name="attention" type="checkbox" value="1" defaultChecked={query.attention} className="size-4" />
            <label htmlFor={attentionId} className="text-sm font-semibold">
              {m.orders.attention}
            </label>
          </div>
          <div className="flex gap-2">
            <button type="submit" className="rounded-md bg-brand px-4 py-2 font-semibold text-brand-ink">
              {m.orders.submit}
            </button>
            <button
              type="button"
              onClick={() => go({ name: 'orders', query: EMPTY_ORDERS_QUERY })}
              className="rounded-md border border-line px-4 py-2 font-semibold"
            >
              {m.orders.reset}
            </button>
          </div>
        </div>
      </form>
      <div className="mt-4">
        <Load state={state} loading={m.orders.loading} retry={retry}>
          {({ orders }) => <OrderTable orders={orders} />}
        </Load>
      </div>
    </>
  );
}

/** A list of orders, each row linking to its order page (also the account screen's). */
export function OrderTable({ orders }: { orders: OpsOrderSummary[] }) {
  const { m, locale } = useOps();
  if (orders.length === 0) return <p role="status">{m.orders.none}</p>;
  const columns = [
    [m.orders.number, 'text-start'],
    [m.orders.created, 'text-start'],
    [m.orders.buyer, 'text-start'],
    [m.orders.plan, 'text-start'],
    [m.orders.total, 'text-end'],
    [m.orders.status, 'text-start'],
    [m.orders.partner, 'text-start'],
    [m.orders.needsAttention, 'text-start'],
  ] as const;
  return (
    <>
      <p role="status" className="mb-2 text-sm text-ink-muted">
        {fill(m.orders.found, { count: String(orders.length) })}
      </p>
      {/* Scrolls sideways on a phone rather than squeezing the columns. */}
      {/* A table wider than a phone scrolls sideways; axe (scrollable-region-focusable) wants it reachable by keyboard. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
      <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={m.orders.heading}>
        <table className="w-full min-w-[44rem] text-start text-sm" data-orders>
          <thead>
            <tr className="border-b border-line text-start">
              {columns.map(([label, align]) => (
                <th key={label} scope="col" className={`px-2 py-1 ${align}`}>
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {orders.map((order) => (
              <tr key={order.id} className="border-b border-line align-top" data-order-row={order.number}>
                <th scope="row" className="px-2 py-1 text-start font-medium whitespace-nowrap">
                  <ViewLink view={{ name: 'order', id: order.id }}>{order.number}</ViewLink>
                </th>
                <td className="px-2 py-1 whitespace-nowrap">{formatMoment(order.createdAt, locale)}</td>
                <td className="px-2 py-1 break-all">{order.email ?? m.order.none}</td>
                <td className="px-2 py-1">
                  {order.destination} · {order.planName}
                  {isTopUpOrder(order) && ` (${order.kind === 'auto' ? m.orders.autoTopUp : m.orders.topUp})`}
                </td>
                <td className="px-2 py-1 text-end whitespace-nowrap">{formatMoney(order.total, locale)}</td>
                <td className="px-2 py-1">{m.states[order.state]}</td>
                <td className="px-2 py-1">{order.partner}</td>
                <td className="px-2 py-1 text-red-800 dark:text-red-300">{order.attention.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

import { useEffect, useState, type ReactNode } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import type { OrderView } from '../../contract/shop-api.ts';
import { formatPrice } from '../../lib/format.ts';
import { formatOrderDate, paymentMethodText, planText } from '../../shop-client/order-format.ts';
import { loadErrorKind } from '../../shop-client/shop-error-text.ts';
import { listOrders } from '../../shop-client/shop.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import type { OrderHistoryMessages } from './order-history-messages.ts';

interface Props {
  locale: Locale;
  messages: OrderHistoryMessages;
  /** The empty state (no orders yet, with the way to the store). */
  children?: ReactNode;
}

type View =
  { status: 'loading' } | { status: 'failed'; kind: keyof OrderHistoryMessages['errors'] } | { status: 'ready'; orders: OrderView[] };

/** The signed-in traveller's orders, newest first, with each one's state and the provider's receipt. */
export default function OrderHistory({ locale, messages: m, children }: Props) {
  const [view, setView] = useState<View>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let stopped = false;
    setView({ status: 'loading' });
    listOrders(locale).then(
      ({ orders }) => {
        if (stopped) return;
        setView({ status: 'ready', orders: [...orders].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt)) });
      },
      (error: unknown) => {
        if (stopped) return;
        setView({ status: 'failed', kind: loadErrorKind(error) });
      },
    );
    return () => {
      stopped = true;
    };
  }, [attempt, locale]);

  if (view.status === 'loading') return <LoadingStatus>{m.loading}</LoadingStatus>;
  if (view.status === 'failed') {
    return (
      <LoadFailed
        text={m.errors[view.kind]}
        retryLabel={m.retry}
        onRetry={() => setAttempt(attempt + 1)}
        className="mt-6"
        data-history-error
      />
    );
  }
  if (view.orders.length === 0) return <>{children}</>;

  return (
    <ul className="mt-6 max-w-2xl space-y-4" data-orders>
      {view.orders.map((order) => (
        <li key={order.id} className="rounded-2xl border border-line p-4" data-order={order.id}>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 className="font-semibold">
              <span className="text-sm font-normal text-ink-muted">{m.orderNumber} </span>
              <span dir="ltr" data-order-number>
                {order.number}
              </span>
            </h2>
            <span className="rounded-full bg-surface-muted px-3 py-1 text-sm font-medium" data-state={order.state}>
              {m.states[order.state]}
            </span>
          </div>
          <p className="mt-3 flex items-center gap-2 font-semibold" data-destination>
            <img src={order.destination.flag} alt="" width="30" height="20" className="rounded-sm border border-line" />
            {order.destination.name}
          </p>
          <p className="mt-1" data-plan>
            {order.kind === 'esim' ? '' : `${order.kind === 'auto' ? m.autoTopUp : m.topUp}: `}
            {planText(order, m.plan, locale)}
          </p>
          <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-ink-muted">{m.total}</dt>
            <dd className="font-semibold" data-total>
              {formatPrice(order.total, locale)}
            </dd>
            {order.paymentMethod && (
              <>
                <dt className="text-ink-muted">{m.paymentMethod}</dt>
                <dd data-payment-method>{paymentMethodText(order.paymentMethod, m.methods)}</dd>
              </>
            )}
            <dt className="text-ink-muted">{m.date}</dt>
            <dd data-date>{formatOrderDate(order.createdAt, locale)}</dd>
          </dl>
          {order.receiptUrl && (
            <a
              href={order.receiptUrl}
              target="_blank"
              rel="noopener"
              className="mt-3 inline-block font-semibold text-brand underline"
              data-receipt
            >
              {m.receipt}
              <span className="sr-only"> ({m.newTab})</span>
            </a>
          )}
        </li>
      ))}
    </ul>
  );
}

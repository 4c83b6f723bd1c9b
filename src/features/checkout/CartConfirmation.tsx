import { useEffect, useState } from 'react';
import { ORDER_POLL_INTERVAL_MS, ORDER_POLL_LIMIT_MS } from '../../config/constants.ts';
import type { CartView, OrderState, OrderView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDataAmount, formatPrice, formatValidity } from '../../lib/format.ts';
import { PAID_STATES, UNPAID_END_STATES } from '../../shop-client/order-format.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { getCart } from '../../shop-client/shop.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import RetryButton from '../../ui/RetryButton.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import { forgetStoredCart } from '../cart/cart-storage.ts';
import InstallCodes from '../esims/InstallCodes.tsx';
import type { OrderConfirmationMessages } from './order-confirmation-messages.ts';
import OrderNotFound from './OrderNotFound.tsx';
import { inProgress, REFUND_STATES } from './order-progress.ts';

interface Props {
  id: string;
  locale: Locale;
  paths: { myEsim: string; store: string; history: string; installGuide: string };
  messages: OrderConfirmationMessages;
}

type View = { status: 'loading' } | { status: 'notFound' } | { status: 'failed' } | { status: 'ready'; cart: CartView; gaveUp: boolean };

/**
 * The payment success page of a cart (?cart={id}, issue 33): every eSIM of the one payment, each
 * with its install codes the moment it is delivered, or what became of it. The cart is read every
 * ORDER_POLL_INTERVAL_MS while an eSIM is on its way, for up to ORDER_POLL_LIMIT_MS; once paid, the
 * cart kept on this device is emptied.
 */
export default function CartConfirmation({ id, locale, paths, messages: m }: Props) {
  const [view, setView] = useState<View>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const started = Date.now();
    async function load() {
      try {
        const cart = await getCart(id, locale);
        if (stopped) return;
        if (cart.orders.some((o) => PAID_STATES.includes(o.state))) forgetStoredCart();
        const waiting = cart.orders.some(inProgress);
        const gaveUp = waiting && Date.now() - started >= ORDER_POLL_LIMIT_MS;
        setView({ status: 'ready', cart, gaveUp });
        if (waiting && !gaveUp) timer = setTimeout(() => void load(), ORDER_POLL_INTERVAL_MS);
      } catch (error) {
        if (stopped) return;
        setView(error instanceof ShopError && error.kind === 'notFound' ? { status: 'notFound' } : { status: 'failed' });
      }
    }
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, locale, attempt]);

  const again = () => setAttempt(attempt + 1);
  const retry = <RetryButton label={m.retry} onRetry={again} />;
  if (view.status === 'loading') return <LoadingStatus>{m.loading}</LoadingStatus>;
  if (view.status === 'notFound') return <OrderNotFound text={m.notFound} historyPath={paths.history} linkText={m.toHistory} />;
  if (view.status === 'failed') {
    return <LoadFailed text={m.errors.server} retryLabel={m.retry} onRetry={again} data-order-error />;
  }

  const { cart, gaveUp } = view;
  const ready = cart.orders.filter((o) => o.state === 'delivered' && o.esim?.install).length;
  const stateText = (order: OrderView) =>
    order.state === 'pending_payment'
      ? m.waiting
      : order.state === 'delivered' && order.esim
        ? m.ready
        : PAID_STATES.includes(order.state)
          ? `${m.received}. ${m.preparing}`
          : (UNPAID_END_STATES as readonly OrderState[]).includes(order.state)
            ? m.unpaid[order.state as (typeof UNPAID_END_STATES)[number]]
            : REFUND_STATES.includes(order.state)
              ? m.refund[order.state === 'refunded' ? 'done' : 'pending']
              : m.states[order.state];
  return (
    <div className="space-y-6" data-cart={cart.id}>
      <p role="status" className="rounded-xl bg-surface-muted p-4 font-semibold" data-cart-progress>
        {fill(m.cartProgress, { ready: String(ready), count: String(cart.orders.length) })}
      </p>
      <h2 className="text-xl font-bold">{m.cartHeading}</h2>
      <ol className="space-y-6">
        {cart.orders.map((order) => (
          <li key={order.id} className="space-y-3 rounded-2xl border border-line p-4" data-order={order.id} data-state={order.state}>
            <h3 id={`cart-order-${order.id}`} className="font-semibold">
              {order.destination.name}: {formatDataAmount(order.plan.metadata.dataAmount, locale)},{' '}
              {formatValidity(order.plan.validity, order.plan.validityUnit, locale)}
            </h3>
            <p className="text-sm text-ink-muted">
              <span id={`cart-order-number-${order.id}`} dir="ltr">
                {order.number}
              </span>{' '}
              · {formatPrice(order.total, locale)}
            </p>
            <p>{stateText(order)}</p>
            {order.state === 'delivered' && order.esim?.install && (
              <InstallCodes
                install={order.esim.install}
                messages={m.installCodes}
                guidePath={paths.installGuide}
                // Two travellers on one plan: the order number tells their codes apart.
                labelledBy={`cart-order-${order.id} cart-order-number-${order.id}`}
              />
            )}
          </li>
        ))}
      </ol>
      {gaveUp && (
        <div className="rounded-xl border border-line p-4" data-gave-up>
          <p>{m.slow}</p>
          {retry}
        </div>
      )}
      <a href={paths.myEsim} className="inline-block rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink">
        {m.viewEsims}
      </a>
    </div>
  );
}

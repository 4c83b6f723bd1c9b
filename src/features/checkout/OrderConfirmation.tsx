import { isTopUpOrder } from '../../contract/order-kinds.ts';
import { useEffect, useState } from 'react';
import { ORDER_POLL_INTERVAL_MS, ORDER_POLL_LIMIT_MS, ORDER_WAIT_MS, PAYMENT_SUCCESS_REDIRECT_MS } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { OrderState, OrderView } from '../../contract/shop-api.ts';
import { formatPrice } from '../../lib/format.ts';
import { formatOrderDate, PAID_STATES, paymentMethodText, UNPAID_END_STATES } from '../../shop-client/order-format.ts';
import { clearExchangeIntent } from '../esims/exchange-intent.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { loadErrorKind } from '../../shop-client/shop-error-text.ts';
import { getOrder } from '../../shop-client/shop.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import RetryButton from '../../ui/RetryButton.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import ConnectChecklist from '../esims/ConnectChecklist.tsx';
import CartConfirmation from './CartConfirmation.tsx';
import OrderNotFound from './OrderNotFound.tsx';
import { deliveredWithEsim, inProgress, REFUND_STATES } from './order-progress.ts';
import InstallCodes from '../esims/InstallCodes.tsx';
import { needsConnecting } from '../esims/needs-connecting.ts';
import type { OrderConfirmationMessages } from './order-confirmation-messages.ts';
import { pollAgainAfterMs } from './order-poll.ts';
import { startOrderReads, takeEarlyOrderReads } from './order-reads.ts';

interface Props {
  locale: Locale;
  paths: { myEsim: string; store: string; history: string; installGuide: string };
  messages: OrderConfirmationMessages;
}

type View =
  | { status: 'loading' }
  | { status: 'notFound' }
  | { status: 'failed'; kind: keyof OrderConfirmationMessages['errors'] }
  | { status: 'ready'; order: OrderView; gaveUp: boolean }
  /** The payment was for a cart (?cart=): CartConfirmation shows its eSIMs. */
  | { status: 'cart'; id: string };

/** The query parameters of the shop API's success URLs: one order's, a cart's. */
const ORDER_PARAM = 'order';
const CART_PARAM = 'cart';

const linkClass = 'inline-block rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink';

/**
 * The payment provider's page returns here with ?order={id}. The order is read, never changed
 * (the webhooks decide, DESIGN 6): while the payment is not confirmed or the eSIM is being
 * prepared the page long-polls it (each answer as soon as the order changes) for up to 2 minutes,
 * and shows the eSIM's install codes the moment it is delivered; then it moves on to My eSIMs after 5 s (spec 9), unless
 * the buyer chooses to stay.
 */
export default function OrderConfirmation({ locale, paths, messages: m }: Props) {
  // Paid: an exchange this tab carried is done with (the next purchase here is a new one).
  useEffect(clearExchangeIntent, []);
  const [view, setView] = useState<View>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    const id = query.get(ORDER_PARAM);
    const cartId = query.get(CART_PARAM);
    if (!id) return setView(cartId ? { status: 'cart', id: cartId } : { status: 'notFound' });
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Leaving the page (or retrying) ends the request under way: the API stops waiting for it.
    const leaving = new AbortController();
    const started = Date.now();
    /**
     * The first read answers at once; each one after is a long-poll (GET /orders/{id}?waitMs): the
     * API answers the moment the order changes (paid, delivered), so the QR code shows within
     * moments of the delivery rather than at the next turn of a timer. The first read and the first
     * long-poll go out together (order-reads.ts), and when the page's own script has already sent
     * them with the session Firebase stored, before it restored it, those answers are taken.
     */
    let last = '';
    /** The long-poll already under way, for the first turn after the first read. */
    let firstPoll: Promise<OrderView> | undefined;
    async function load(id: string, wait: boolean, pending?: Promise<OrderView>) {
      try {
        const asked = Date.now();
        const order = await (pending ?? getOrder(id, locale, wait ? { waitMs: ORDER_WAIT_MS, signal: leaving.signal } : undefined));
        if (stopped) return;
        const waiting = inProgress(order);
        const gaveUp = waiting && Date.now() - started >= ORDER_POLL_LIMIT_MS;
        setView({ status: 'ready', order, gaveUp });
        // Unchanged and answered early (a server or cache that does not hold the request): the next
        // ask waits out the pause, never a tight loop.
        const seen = `${order.state} ${!!order.esim}`;
        const pause = wait && seen === last ? Math.max(0, ORDER_POLL_INTERVAL_MS - (Date.now() - asked)) : 0;
        last = seen;
        const next = firstPoll;
        firstPoll = undefined;
        if (waiting && !gaveUp) timer = setTimeout(() => void load(id, true, next), pause);
      } catch (error) {
        if (stopped) return;
        // An ask sent ahead failed (the stored token refused, the network): asked again, as usual.
        if (pending) return void load(id, wait);
        // A long-poll cut off on the way, or refused while the buyer's other tabs wait: asked again.
        const pause = wait ? pollAgainAfterMs(error) : undefined;
        if (pause !== undefined) {
          timer = setTimeout(() => void load(id, true), pause);
          return;
        }
        setView(
          error instanceof ShopError && error.kind === 'notFound'
            ? { status: 'notFound' }
            : { status: 'failed', kind: loadErrorKind(error) },
        );
      }
    }
    void (async () => {
      const reads = (await takeEarlyOrderReads(id, locale)) ?? startOrderReads(getOrder, id, locale);
      leaving.signal.addEventListener('abort', reads.abort);
      if (stopped) return reads.abort();
      firstPoll = reads.poll;
      await load(id, false, reads.read);
    })();
    return () => {
      stopped = true;
      clearTimeout(timer);
      leaving.abort();
    };
  }, [attempt, locale]);

  const paid = view.status === 'ready' && PAID_STATES.includes(view.order.state);
  const delivered = view.status === 'ready' && deliveredWithEsim(view.order);
  // WCAG 2.2.1: a buyer copying the codes can stop the move to My eSIMs.
  const [staying, setStaying] = useState(false);
  useEffect(() => {
    if (!delivered || staying) return;
    const timer = setTimeout(() => window.location.assign(paths.myEsim), PAYMENT_SUCCESS_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [delivered, staying, paths.myEsim]);

  const again = () => setAttempt(attempt + 1);
  const retry = <RetryButton label={m.retry} onRetry={again} />;

  if (view.status === 'loading') {
    return <LoadingStatus>{m.loading}</LoadingStatus>;
  }
  if (view.status === 'cart') return <CartConfirmation id={view.id} locale={locale} paths={paths} messages={m} />;
  if (view.status === 'notFound') return <OrderNotFound text={m.notFound} historyPath={paths.history} linkText={m.toHistory} />;
  if (view.status === 'failed') {
    return <LoadFailed text={m.errors[view.kind]} retryLabel={m.retry} onRetry={again} data-order-error />;
  }

  const { order, gaveUp } = view;
  const unpaidEnd = (UNPAID_END_STATES as readonly OrderState[]).includes(order.state);
  const refunding = REFUND_STATES.includes(order.state);
  const topUp = isTopUpOrder(order);
  return (
    <div className="space-y-6" data-order={order.id} data-state={order.state}>
      <div role="status" className="rounded-xl bg-surface-muted p-4 font-semibold">
        {order.state === 'pending_payment'
          ? m.waiting
          : delivered
            ? topUp
              ? m.toppedUp
              : m.ready
            : paid
              ? `${m.received}. ${topUp ? m.addingData : m.preparing}`
              : unpaidEnd
                ? m.unpaid[order.state as (typeof UNPAID_END_STATES)[number]]
                : refunding
                  ? m.refund[order.state === 'refunded' ? 'done' : 'pending']
                  : m.states[order.state]}
      </div>
      {paid && !delivered && <p className="text-sm text-ink-muted">{m.deliveryPromise}</p>}
      {delivered && !topUp && order.esim?.install && (
        <InstallCodes install={order.esim.install} messages={m.installCodes} guidePath={paths.installGuide} />
      )}
      {delivered && !topUp && order.esim?.install && needsConnecting(order.esim) && (
        <ConnectChecklist apn={order.esim.install.apn} messages={m.checklist} />
      )}
      {gaveUp && (
        <div className="rounded-xl border border-line p-4" data-gave-up>
          <p>{m.slow}</p>
          {retry}
        </div>
      )}
      <dl className="space-y-2 rounded-2xl border border-line p-5">
        <div className="flex flex-wrap justify-between gap-x-4">
          <dt>{m.orderId}</dt>
          <dd dir="ltr" data-order-number>
            {order.number}
          </dd>
        </div>
        <div className="flex flex-wrap justify-between gap-x-4">
          <dt>{m.amount}</dt>
          <dd data-order-total>{formatPrice(order.total, locale)}</dd>
        </div>
        <div className="flex flex-wrap justify-between gap-x-4">
          <dt>{m.date}</dt>
          <dd data-order-date>{formatOrderDate(order.paidAt ?? order.createdAt, locale, 'long')}</dd>
        </div>
        {order.paymentMethod && (
          <div className="flex flex-wrap justify-between gap-x-4">
            <dt>{m.paymentMethod}</dt>
            <dd data-payment-method>{paymentMethodText(order.paymentMethod, m.methods)}</dd>
          </div>
        )}
      </dl>
      {delivered && (
        <div className="space-y-3" data-next>
          {!staying && (
            <p className="text-sm text-ink-muted">
              {m.redirect}{' '}
              <button type="button" onClick={() => setStaying(true)} className="font-semibold text-brand underline">
                {m.stay}
              </button>
            </p>
          )}
          <a href={paths.myEsim} className={linkClass}>
            {m.viewEsims}
          </a>
        </div>
      )}
      {unpaidEnd && (
        <a href={paths.store} className={linkClass}>
          {m.toStore}
        </a>
      )}
      {!delivered && !unpaidEnd && order.state !== 'pending_payment' && (
        <a href={paths.history} className={linkClass}>
          {m.toHistory}
        </a>
      )}
    </div>
  );
}

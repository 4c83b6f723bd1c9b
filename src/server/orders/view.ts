import type { OrderView } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { DestinationOf } from '../esims/view.ts';
import { orderNumber } from './store.ts';
import type { OrderWithPayment } from './store.types.ts';

/** An order as its buyer sees it (OrderView without its eSIM), in their language. */
export const orderView = (row: OrderWithPayment, lang: Locale, destination: DestinationOf): Omit<OrderView, 'esim'> => ({
  id: row.id,
  number: orderNumber(row),
  state: row.state,
  kind: row.kind,
  esimId: row.top_up_of ?? row.id,
  plan: row.plan,
  destination: destination(row.destination, lang),
  total: { amountMinor: row.amount_minor, currency: row.currency },
  createdAt: row.created_at.toISOString(),
  paidAt: row.paid_at?.toISOString() ?? null,
  paymentMethod: row.method_type
    ? { type: row.method_type, ...(row.card_brand && { brand: row.card_brand }), ...(row.card_last4 && { last4: row.card_last4 }) }
    : null,
  receiptUrl: row.receipt_url,
  checkoutUrl: row.state === 'pending_payment' ? row.checkout_url : null,
});

import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { loadErrorMessages, type LoadErrorMessages } from '../../shop-client/shop-error-messages.ts';
import { checkoutNamespace } from '../checkout/messages.ts';
import { accountNamespace, type AccountNamespace } from './messages.ts';

type History = AccountNamespace['history'];

/** The order history texts the island shows: the page itself shows the title and the empty state. */
const SHOWN = [
  'loading',
  'retry',
  'orderNumber',
  'states',
  'topUp',
  'autoTopUp',
  'total',
  'paymentMethod',
  'methods',
  'date',
  'receipt',
  'newTab',
] as const satisfies readonly (keyof History)[];

/** What the order history island (OrderHistory.tsx) says, and nothing else. */
export type OrderHistoryMessages = Pick<History, (typeof SHOWN)[number]> & {
  /** checkout.plan: '{{data}} data plan, {{validity}}'. */
  plan: string;
  errors: LoadErrorMessages;
};

export function orderHistoryMessages(locale: Locale): OrderHistoryMessages {
  return {
    ...pickMessages(accountNamespace(locale).history, SHOWN),
    plan: checkoutNamespace(locale).checkout.plan,
    errors: loadErrorMessages(locale),
  };
}

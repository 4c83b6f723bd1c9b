import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { accountNamespace, type AccountNamespace } from '../account/messages.ts';
import { checklistMessages, installCodesMessages, type ChecklistMessages, type InstallCodesMessages } from '../esims/messages.ts';
import { checkoutNamespace, deliveryPromiseText, type CheckoutNamespace } from './messages.ts';
import { loadErrorMessages, type LoadErrorMessages } from '../../shop-client/shop-error-messages.ts';

type PaymentSuccess = CheckoutNamespace['paymentSuccess'];

/** The payment success texts the island shows: the page itself shows the title and heading. */
const SHOWN = [
  'loading',
  'retry',
  'notFound',
  'toHistory',
  'waiting',
  'toppedUp',
  'ready',
  'received',
  'addingData',
  'preparing',
  'unpaid',
  'refund',
  'slow',
  'orderId',
  'amount',
  'date',
  'paymentMethod',
  'redirect',
  'stay',
  'viewEsims',
  'toStore',
  'cartHeading',
  'cartProgress',
] as const satisfies readonly (keyof PaymentSuccess)[];

/** What the payment success island (OrderConfirmation.tsx) says, and nothing else. */
export type OrderConfirmationMessages = Pick<PaymentSuccess, (typeof SHOWN)[number]> & {
  states: AccountNamespace['history']['states'];
  methods: AccountNamespace['history']['methods'];
  errors: LoadErrorMessages;
  installCodes: InstallCodesMessages;
  checklist: ChecklistMessages;
  deliveryPromise: string;
};

export function orderConfirmationMessages(locale: Locale): OrderConfirmationMessages {
  const { paymentSuccess } = checkoutNamespace(locale);
  const { history } = accountNamespace(locale);
  return {
    ...pickMessages(paymentSuccess, SHOWN),
    states: history.states,
    methods: history.methods,
    errors: loadErrorMessages(locale),
    installCodes: installCodesMessages(locale),
    checklist: checklistMessages(locale),
    deliveryPromise: deliveryPromiseText(locale),
  };
}

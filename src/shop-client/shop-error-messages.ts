import type { Locale } from '../i18n/locales.ts';
import { pickMessages } from '../i18n/namespace-messages.ts';
import { authNamespace, type AuthNamespace } from '../features/auth/messages.ts';
import { checkoutNamespace, type CheckoutNamespace } from '../features/checkout/messages.ts';

/** What shopErrorText says (shop-error-text.ts): auth's network and 'too many attempts' errors, checkout's server, sign-in and input errors. */
export interface ShopErrorMessages {
  errors: Pick<AuthNamespace['errors'], 'network' | 'tooManyRequests'>;
  checkout: {
    errors: Pick<
      CheckoutNamespace['checkout']['errors'],
      'server' | 'unauthorized' | 'badInput' | 'salesPaused' | 'accountBlocked' | 'tooManyRequests'
    >;
  };
}

export function shopErrorMessages(locale: Locale): ShopErrorMessages {
  return {
    errors: pickMessages(authNamespace(locale).errors, ['network', 'tooManyRequests']),
    checkout: {
      errors: pickMessages(checkoutNamespace(locale).checkout.errors, [
        'server',
        'unauthorized',
        'badInput',
        'salesPaused',
        'accountBlocked',
        'tooManyRequests',
      ]),
    },
  };
}

/** What an island says when loading failed, by ShopError kind: auth's network error, checkout's server, sign-in and input errors. */
export type LoadErrorMessages = Record<'network' | 'server' | 'unauthorized' | 'badInput', string>;

export function loadErrorMessages(locale: Locale): LoadErrorMessages {
  const { errors } = checkoutNamespace(locale).checkout;
  return { ...pickMessages(errors, ['server', 'unauthorized', 'badInput']), network: authNamespace(locale).errors.network };
}

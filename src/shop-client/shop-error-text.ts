import type { Locale } from '../i18n/locales.ts';
import { fill } from '../i18n/fill.ts';
import { ShopError } from './shop-client.ts';
import type { LoadErrorMessages, ShopErrorMessages } from './shop-error-messages.ts';

/**
 * A per-user limit was reached (429): 'Too many attempts', with the wait when the API said it,
 * as the language says a time from now ('in 45 seconds', 'через 45 секунд', '45 秒後').
 */
export function tooManyRequestsText(
  m: {
    errors: Pick<ShopErrorMessages['errors'], 'tooManyRequests'>;
    checkout: { errors: Pick<ShopErrorMessages['checkout']['errors'], 'tooManyRequests'> };
  },
  locale: Locale,
  retryAfterSeconds: number | undefined,
): string {
  if (!retryAfterSeconds) return m.errors.tooManyRequests;
  const when = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  const text = retryAfterSeconds < 90 ? when.format(retryAfterSeconds, 'second') : when.format(Math.ceil(retryAfterSeconds / 60), 'minute');
  return fill(m.checkout.errors.tooManyRequests, { when: text });
}

/**
 * What a failed shop API call says to the visitor (spec 8), for islands that have no special
 * text of their own: the auth network error, 'too many attempts', else checkout's server,
 * sign-in, input, sales paused and blocked account errors.
 */
export function shopErrorText(error: unknown, m: ShopErrorMessages, locale?: Locale): string {
  const kind = error instanceof ShopError ? error.kind : 'server';
  if (kind === 'network') return m.errors.network;
  if (kind === 'tooManyRequests')
    return locale ? tooManyRequestsText(m, locale, (error as ShopError).retryAfterSeconds) : m.errors.tooManyRequests;
  if (kind === 'unauthorized' || kind === 'badInput' || kind === 'salesPaused' || kind === 'accountBlocked') return m.checkout.errors[kind];
  return m.checkout.errors.server;
}

/** Which of LoadErrorMessages a failed load shows: the network, sign-in and input errors as such, any other as 'server'. */
export function loadErrorKind(error: unknown): keyof LoadErrorMessages {
  const kind = error instanceof ShopError ? error.kind : 'server';
  return kind === 'network' || kind === 'unauthorized' || kind === 'badInput' ? kind : 'server';
}

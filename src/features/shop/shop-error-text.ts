import type { AuthMessages } from '../auth/messages.ts';
import { ShopError } from './shop-client.ts';

/**
 * What a failed shop API call says to the visitor (spec 8), for islands that have no special
 * text of their own: the auth network error, else checkout's server, sign-in and input errors.
 */
export function shopErrorText(error: unknown, m: Pick<AuthMessages, 'errors' | 'checkout'>): string {
  const kind = error instanceof ShopError ? error.kind : 'server';
  if (kind === 'network') return m.errors.network;
  if (kind === 'unauthorized' || kind === 'badInput') return m.checkout.errors[kind];
  return m.checkout.errors.server;
}

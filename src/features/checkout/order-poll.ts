import { ORDER_POLL_INTERVAL_MS } from '../../config/constants.ts';
import { ShopError } from '../../shop-client/shop-client.ts';

/**
 * After a failed long-poll of the payment success page: how long to pause before asking again, or
 * undefined when the failure is the page's to show. A long-poll cut off on the way (a proxy's
 * time-out, a network change) is asked again after a pause; one refused because too many of the
 * buyer's pages wait at once (other tabs: 429) when the API's Retry-After says.
 */
export function pollAgainAfterMs(error: unknown): number | undefined {
  if (!(error instanceof ShopError)) return undefined;
  if (error.kind === 'network' || error.kind === 'server') return ORDER_POLL_INTERVAL_MS;
  if (error.kind === 'tooManyRequests') return error.retryAfterSeconds ? error.retryAfterSeconds * 1000 : ORDER_POLL_INTERVAL_MS;
  return undefined;
}

import { describe, expect, it } from 'vitest';
import { ORDER_POLL_INTERVAL_MS } from '../../config/constants.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { pollAgainAfterMs } from './order-poll.ts';

describe("the payment success page's long-poll after a failure", () => {
  it('asks again when the API says, when too many of the buyer’s pages wait at once (429)', () => {
    expect(pollAgainAfterMs(new ShopError('tooManyRequests', undefined, 17))).toBe(17_000);
    expect(pollAgainAfterMs(new ShopError('tooManyRequests'))).toBe(ORDER_POLL_INTERVAL_MS);
  });

  it('asks again after a pause when cut off on the way, and shows what is the page’s to show', () => {
    expect(pollAgainAfterMs(new ShopError('network'))).toBe(ORDER_POLL_INTERVAL_MS);
    expect(pollAgainAfterMs(new ShopError('server'))).toBe(ORDER_POLL_INTERVAL_MS);
    expect(pollAgainAfterMs(new ShopError('notFound'))).toBeUndefined();
    expect(pollAgainAfterMs(new ShopError('unauthorized'))).toBeUndefined();
    expect(pollAgainAfterMs(new Error('bug'))).toBeUndefined();
  });
});

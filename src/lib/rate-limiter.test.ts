import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.ts';

describe('createRateLimiter', () => {
  it('lets `requests` calls start at once and the next one a window after the first one ended', async () => {
    const limiter = createRateLimiter({ requests: 2, windowMs: 60, marginMs: 10 });
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    let third = false;
    const waiting = limiter.acquire().then((done) => {
      third = true;
      return done;
    });
    first();
    const endedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(third).toBe(false);
    (await waiting)();
    expect(performance.now() - endedAt).toBeGreaterThanOrEqual(69);
    second();
  });

  it('does not count a call still in flight as ended: it holds its place until it ends', async () => {
    const limiter = createRateLimiter({ requests: 1, windowMs: 10, marginMs: 0 });
    const inFlight = await limiter.acquire();
    let next = false;
    const waiting = limiter.acquire().then((done) => {
      next = true;
      return done;
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(next).toBe(false);
    inFlight();
    (await waiting)();
    expect(next).toBe(true);
  });
});

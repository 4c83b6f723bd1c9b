import { describe, expect, it } from 'vitest';
import { sameSecret } from './http.ts';

/** The secret comparison of the partner webhook's path and the reconcile job's bearer token (issue 20, item 7). */
describe('sameSecret', () => {
  const secret = 'test-partner-webhook-token';

  it('accepts the secret and refuses anything else', () => {
    expect(sameSecret(secret, secret)).toBe(true);
    for (const given of ['', 'test', `${secret}x`, secret.slice(0, -1), secret.toUpperCase(), `${secret}\u0000`]) {
      expect(sameSecret(given, secret), JSON.stringify(given)).toBe(false);
    }
  });

  it('refuses non-ASCII input of any length without throwing, whatever its length in bytes', () => {
    // 'é' is one UTF-16 unit and two UTF-8 bytes: as many as the secret has characters once threw.
    for (const length of [1, secret.length - 1, secret.length, secret.length + 1, secret.length * 2]) {
      for (const unit of ['é', '日', '😀', '\uD800']) {
        const given = unit.repeat(length);
        expect(() => sameSecret(given, secret), `${length}×${unit}`).not.toThrow();
        expect(sameSecret(given, secret)).toBe(false);
      }
    }
  });

  it('compares non-ASCII secrets exactly', () => {
    expect(sameSecret('clé-é', 'clé-é')).toBe(true);
    expect(sameSecret('clé-e', 'clé-é')).toBe(false);
    // A lone surrogate is not the replacement character it would become in UTF-8.
    expect(sameSecret('\uD800', '\uFFFD')).toBe(false);
  });
});

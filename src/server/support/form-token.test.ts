import { describe, expect, it } from 'vitest';
import { SUPPORT_FORM_MAX_AGE_MS } from '../../contract/support-api.ts';
import { formTokenGood, issueFormToken, readFormToken } from './form-token.ts';

describe('the support form token (the spam check)', () => {
  const secret = 'test-secret';
  const shown = Date.parse('2026-11-28T12:00:00Z');
  const token = issueFormToken(secret, shown);

  it('is good from the shortest fill time to a day after the form was shown', () => {
    expect(formTokenGood(secret, token, 3_000, shown + 2_999)).toBe(false);
    expect(formTokenGood(secret, token, 3_000, shown + 3_000)).toBe(true);
    expect(formTokenGood(secret, token, 3_000, shown + SUPPORT_FORM_MAX_AGE_MS)).toBe(true);
    expect(formTokenGood(secret, token, 3_000, shown + SUPPORT_FORM_MAX_AGE_MS + 1)).toBe(false);
  });

  it('is ours only: another key, an earlier time or another nonce under our signature, or no token at all is refused', () => {
    expect(formTokenGood('another-secret', token, 0, shown + 5_000)).toBe(false);
    const [, nonce, signature] = token.split('.');
    expect(formTokenGood(secret, `${shown - 60_000}.${nonce}.${signature}`, 0, shown + 5_000)).toBe(false);
    expect(formTokenGood(secret, `${shown}.${'A'.repeat(22)}.${signature}`, 0, shown + 5_000)).toBe(false);
    for (const bad of ['', 'x', `${shown}`, `${shown}.`, `${shown}.${'a'.repeat(43)}`, `${shown}.${signature}`])
      expect(formTokenGood(secret, bad, 0, shown + 5_000)).toBe(false);
  });

  it('names itself alone: two forms shown in the same millisecond get different nonces (each is used once)', () => {
    const other = issueFormToken(secret, shown);
    expect(other).not.toBe(token);
    const first = readFormToken(secret, token, 0, shown + 5_000)!;
    const second = readFormToken(secret, other, 0, shown + 5_000)!;
    expect(first.issuedAt).toBe(shown);
    expect(second.issuedAt).toBe(shown);
    expect(first.nonce).not.toBe(second.nonce);
  });
});

import { describe, expect, it } from 'vitest';
import { SUPPORT_FORM_MAX_AGE_MS } from '../../contract/support-api.ts';
import { formTokenGood, issueFormToken } from './form-token.ts';

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

  it('is ours only: another key, an earlier time under our signature, or no token at all is refused', () => {
    expect(formTokenGood('another-secret', token, 0, shown + 5_000)).toBe(false);
    const [, signature] = token.split('.');
    expect(formTokenGood(secret, `${shown - 60_000}.${signature}`, 0, shown + 5_000)).toBe(false);
    for (const bad of ['', 'x', `${shown}`, `${shown}.`, `${shown}.${'a'.repeat(43)}`])
      expect(formTokenGood(secret, bad, 0, shown + 5_000)).toBe(false);
  });
});

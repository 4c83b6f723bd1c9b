import { describe, expect, it } from 'vitest';
import { readUnsubscribeToken, unsubscribePageUrl, unsubscribeToken, unsubscribeUrl } from './unsubscribe-token.ts';

const SECRET = 'a-long-random-alerts-secret';

describe('the unsubscribe token', () => {
  it('names the account and the alert kind it was made for, and fits a URL as it is', () => {
    const token = unsubscribeToken(SECRET, 'uid-Ünïcode/+1', 'data_80');
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(readUnsubscribeToken(SECRET, token)).toEqual({ uid: 'uid-Ünïcode/+1', kind: 'data_80' });
  });

  it('is refused when made with another key, changed in any part, or not a token at all', () => {
    const token = unsubscribeToken(SECRET, 'buyer-1', 'data_used_up');
    expect(readUnsubscribeToken('another-secret', token)).toBeUndefined();
    const [uid, kind, mac] = token.split('.') as [string, string, string];
    const otherKind = unsubscribeToken(SECRET, 'buyer-1', 'validity_1_day').split('.')[1]!;
    const otherUid = Buffer.from('buyer-2').toString('base64url');
    for (const forged of [
      `${uid}.${otherKind}.${mac}`,
      `${otherUid}.${kind}.${mac}`,
      `${uid}.${kind}.${mac.slice(0, -1)}`,
      `${uid}.${kind}.${mac}A`,
      `${uid}.${kind}`,
      `${uid}.${kind}.${mac}.x`,
      '',
      '...',
      `${uid}.${kind}.${mac.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
    ]) {
      expect(readUnsubscribeToken(SECRET, forged), forged).toBeUndefined();
    }
  });

  it('is refused for a kind that is not an alert, even when signed', () => {
    const signed = unsubscribeToken(SECRET, 'buyer-1', 'newsletter' as never);
    expect(readUnsubscribeToken(SECRET, signed)).toBeUndefined();
  });

  it('goes into the API’s one-click URL and the site’s page in the buyer’s language', () => {
    const token = unsubscribeToken(SECRET, 'buyer-1', 'data_80');
    expect(unsubscribeUrl('https://api.example', token)).toBe(`https://api.example/alerts/unsubscribe?token=${token}`);
    expect(unsubscribeUrl('https://api.example', token, 'de')).toBe(`https://api.example/alerts/unsubscribe?token=${token}&lang=de`);
    expect(unsubscribePageUrl('https://shop.example', 'fr', token)).toBe(`https://shop.example/fr/unsubscribe?token=${token}`);
    expect(unsubscribePageUrl('https://shop.example', 'en', token)).toBe(`https://shop.example/unsubscribe?token=${token}`);
  });
});

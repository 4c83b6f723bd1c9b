import { describe, expect, it } from 'vitest';
import type { SavedCardView } from '../../contract/shop-api.ts';
import { cardExpiry, savedCardText } from './saved-card-text.ts';

const card: SavedCardView = { brand: 'visa', last4: '4242', expMonth: 3, expYear: 2034, savedAt: '2026-01-01T00:00:00.000Z' };

describe('the saved card in words', () => {
  it("names Stripe's brands as the card networks write them, and any other as Stripe does", () => {
    expect(savedCardText('Saved card: {{brand}} ending in {{last4}}', card)).toBe('Saved card: Visa ending in 4242');
    expect(savedCardText('{{brand}}', { ...card, brand: 'amex' })).toBe('American Express');
    expect(savedCardText('{{brand}}', { ...card, brand: 'link' })).toBe('link');
  });

  it('writes the expiry as printed on the card, in the language’s order, and none when Stripe did not say', () => {
    expect(cardExpiry(card, 'en')).toBe('03/2034');
    expect(cardExpiry(card, 'ja')).toBe('2034/03');
    expect(cardExpiry({ ...card, expMonth: null }, 'en')).toBeUndefined();
  });
});

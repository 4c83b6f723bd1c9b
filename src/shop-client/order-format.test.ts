import { describe, expect, it } from 'vitest';
import { paymentMethodText, type MethodNames } from './order-format.ts';

const names: MethodNames = { card: 'Karte', sepa_debit: 'SEPA-Lastschrift', other: 'Andere Zahlungsart' };

describe('paymentMethodText', () => {
  it('names a card by its network and last four digits', () => {
    expect(paymentMethodText({ type: 'card', brand: 'visa', last4: '4242' }, names)).toBe('Visa •••• 4242');
    expect(paymentMethodText({ type: 'card', brand: 'amex', last4: '0005' }, names)).toBe('American Express •••• 0005');
  });

  it('a card without digits, a bank method and an unknown one in the page’s language; a brand by its own name', () => {
    expect(paymentMethodText({ type: 'card' }, names)).toBe('Karte');
    expect(paymentMethodText({ type: 'sepa_debit' }, names)).toBe('SEPA-Lastschrift');
    expect(paymentMethodText({ type: 'paypal' }, names)).toBe('PayPal');
    expect(paymentMethodText({ type: 'wechat_pay' }, names)).toBe('Andere Zahlungsart');
    expect(paymentMethodText({ type: 'toString' }, names)).toBe('Andere Zahlungsart');
  });
});

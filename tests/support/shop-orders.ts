import type { CreateOrderResponse, OrderView } from '../../src/shop/contract.ts';

/**
 * Orders as the shop API answers them (src/shop/contract.ts), for the tests that answer in its
 * place: the client's tests and the browser tests of the failure paths. The client's tests
 * check these against the contract's schemas.
 */
export function orderView(overrides: Partial<OrderView> = {}): OrderView {
  return {
    id: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
    number: 'ES-2026-000123',
    state: 'pending_payment',
    kind: 'esim',
    esimId: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
    plan: { id: 'jp-5gb-30d', metadata: { dataAmount: { value: 5, unit: 'GB' } }, validity: 30, validityUnit: 'day', supportedCountries: ['JP'] },
    destination: { code: 'JP', name: 'Japan', flag: '/flags/JP.svg' },
    total: { amountMinor: 1299, currency: 'EUR' },
    createdAt: '2026-03-14T09:26:53.000Z',
    paidAt: null,
    paymentMethod: null,
    receiptUrl: null,
    checkoutUrl: 'https://checkout.stripe.test/c/pay/cs_test_1',
    ...overrides,
  };
}

export const createOrderResponse = (overrides: Partial<OrderView> = {}): CreateOrderResponse => {
  const order = orderView(overrides);
  return { order, checkoutUrl: order.checkoutUrl! };
};

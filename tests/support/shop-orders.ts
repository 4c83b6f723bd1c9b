import { CreateOrderResponse, EsimView, OrderView, TopUpPlans } from '../../src/contract/shop-api.ts';

/**
 * Orders, eSIMs and top-ups as the shop API answers them (src/contract/shop-api.ts), for the tests that
 * answer in its place: the client's tests and the browser tests that answer the API with
 * page.route. Each one is parsed with its schema of the contract as it is made, overrides
 * included, so no test answers what the API could not (tests/support/shop-orders.test.ts).
 */
// Every fixture is Japanese: the destination, and what each plan says of its days and countries.
const JAPAN = { code: 'JP', name: 'Japan', flag: '/flags/JP.svg' };
const IN_JAPAN = { validityUnit: 'day', supportedCountries: ['JP'] };

export function orderView(overrides: Partial<OrderView> = {}): OrderView {
  return OrderView.parse({
    id: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
    number: 'ES-2026-000123',
    state: 'pending_payment',
    kind: 'esim',
    esimId: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
    plan: { id: 'jp-5gb-30d', metadata: { dataAmount: { value: 5, unit: 'GB' } }, validity: 30, ...IN_JAPAN },
    destination: JAPAN,
    total: { amountMinor: 1299, currency: 'EUR' },
    createdAt: '2026-03-14T09:26:53.000Z',
    paidAt: null,
    paymentMethod: null,
    receiptUrl: null,
    checkoutUrl: 'https://checkout.stripe.test/c/pay/cs_test_1',
    ...overrides,
  });
}

/** POST /orders' answer: the order (still to pay) and its payment page. */
export const createOrderResponse = (overrides: Partial<OrderView> = {}): CreateOrderResponse => {
  const order = orderView(overrides);
  return CreateOrderResponse.parse({ order, checkoutUrl: order.checkoutUrl });
};

/** An eSIM as GET /esims answers it: installed, 1.2 GB of 3 GB used, with its install codes. */
export function esimView(overrides: Partial<EsimView> = {}): EsimView {
  const lpa = 'LPA:1$rsp.example.test$K2-1A2B3C-4D5E6F';
  return EsimView.parse({
    id: '0b7a2a52-3f5c-4c39-9a57-8f1f2f3c1d11',
    orderNumber: 'ES-2026-000123',
    status: 'active',
    plan: { id: 'jp-3gb-15d', metadata: { dataAmount: { value: 3, unit: 'GB' } }, validity: 15, ...IN_JAPAN },
    destination: JAPAN,
    purchasedAt: '2026-03-14T09:26:53.000Z',
    iccid: '8985200012345678901',
    usage: { usedBytes: Math.round(1.2 * 2 ** 30), totalBytes: 3 * 2 ** 30 },
    expiresAt: '2026-04-13T09:30:00.000Z',
    install: {
      lpa,
      smdpAddress: 'rsp.example.test',
      activationCode: 'K2-1A2B3C-4D5E6F',
      qrSvg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><path d="M0 0h2v2H0z"/></svg>',
      iphoneUrl: `https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(lpa)}`,
      apn: 'internet.example.test',
    },
    refundable: false,
    replaceable: false,
    canTopUp: true,
    topUpSupported: true,
    traveller: null,
    // Not told yet (as before install steps were sent): a test that needs one names it.
    installStep: null,
    installStepAt: null,
    ...overrides,
  });
}

/** GET /esims/{id}/top-ups' answer for esimView()'s eSIM (Japan): the partner's top-ups of it, priced, cheapest first. */
export function topUpPlans(overrides: Partial<TopUpPlans> = {}): TopUpPlans {
  return TopUpPlans.parse({
    destination: JAPAN,
    plans: [
      {
        id: 'topup-2gb-15d',
        dataAmount: { value: 2, unit: 'GB' },
        validity: 15,
        ...IN_JAPAN,
        price: { amountMinor: 899, currency: 'EUR' },
      },
    ],
    ...overrides,
  });
}

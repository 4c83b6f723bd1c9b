import { describe, expect, it } from 'vitest';
import { CreateOrderResponse, EsimList, EsimView, OrderList, OrderView, TopUpPlans } from '../../src/contract/shop-api.ts';
import { createOrderResponse, esimView, orderView, topUpPlans } from './shop-orders.ts';

/**
 * The answers the client's tests and the browser tests give in the shop API's place
 * (tests/support/shop-orders.ts, answered with page.route in tests/e2e) are answers the API could
 * give: each fixture is its schema's, as made and with the overrides the tests use, and one that
 * is not refuses to be made rather than reaching a page.
 */
describe('the shop API fixtures', () => {
  it('are what the contract allows, as the tests make them', () => {
    const made: [unknown, { parse(value: unknown): unknown }][] = [
      [orderView(), OrderView],
      [
        orderView({
          state: 'paid',
          paymentMethod: { type: 'card', brand: 'visa', last4: '4242' },
          paidAt: '2026-03-14T09:28:00.000Z',
          checkoutUrl: null,
        }),
        OrderView,
      ],
      [createOrderResponse(), CreateOrderResponse],
      [createOrderResponse({ kind: 'top_up', checkoutUrl: 'https://checkout.stripe.test/c/pay/cs_test_ui' }), CreateOrderResponse],
      [{ orders: [orderView({ state: 'paid' }), orderView({ id: 'b', number: 'ES-2026-000122' })] }, OrderList],
      [esimView(), EsimView],
      [esimView({ status: 'ready', usage: { usedBytes: 0, totalBytes: 2 ** 30 }, refundable: true, canTopUp: false }), EsimView],
      [esimView({ status: 'refunding', install: null, refundable: false }), EsimView],
      [{ esims: [esimView()] }, EsimList],
      [topUpPlans(), TopUpPlans],
    ];
    for (const [fixture, schema] of made) expect(schema.parse(fixture)).toEqual(fixture);
  });

  it('answer what the API answers: an order to pay carries its payment page, and the eSIM its codes', () => {
    const created = createOrderResponse();
    expect(created.checkoutUrl).toBe(created.order.checkoutUrl);
    const { install } = esimView();
    expect(install!.lpa).toBe(`LPA:1$${install!.smdpAddress}$${install!.activationCode}`);
    expect(topUpPlans().plans.length).toBeGreaterThan(0);
  });

  it('refuse to be made with what the contract does not allow', () => {
    const refused: [string, () => unknown][] = [
      ['an unknown order state', () => orderView({ state: 'shipped' as OrderView['state'] })],
      ['a price in fractions of a cent', () => orderView({ total: { amountMinor: 12.5, currency: 'EUR' } })],
      ['a payment page that is no URL', () => createOrderResponse({ checkoutUrl: 'not a url' })],
      ['a time without its zone', () => orderView({ createdAt: '14.03.2026 09:26' })],
      ['an unknown eSIM status', () => esimView({ status: 'installed' as EsimView['status'] })],
      ['negative data used', () => esimView({ usage: { usedBytes: -1, totalBytes: 2 ** 30 } })],
      ['an install link that is no URL', () => esimView({ install: { ...esimView().install!, iphoneUrl: 'carddata' } })],
      ['a top-up without a price', () => topUpPlans({ plans: [{ ...topUpPlans().plans[0]!, price: undefined as never }] })],
      ['a top-up of no days', () => topUpPlans({ plans: [{ ...topUpPlans().plans[0]!, validity: 0 }] })],
    ];
    for (const [what, make] of refused) expect(make, what).toThrow();
  });
});

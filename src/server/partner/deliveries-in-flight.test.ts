import { describe, expect, it } from 'vitest';
import { DELIVERY_IN_FLIGHT_MAX_MS } from '../../config/constants.ts';
import { PartnerError } from './partner.ts';
import type { EsimPartner, ProfileAnswer } from './partner.types.ts';
import { partnerRegistry } from './registry.ts';

const ready = (transactionId: string): ProfileAnswer => ({ status: 'ready', profiles: [{ transactionId }] }) as unknown as ProfileAnswer;

/** How long a partner's deliveries under way take at its budget's rate (issue 48's routing), as orders go through the registry. */
describe("a partner's deliveries under way", () => {
  it('count from the order sent until its eSIM is read ready, at the requests each still takes, and not once refused or stale', async () => {
    let now = 0;
    const esimGo = {
      name: 'eSIM Go',
      requestsPerDelivery: { order: 3, read: 3 },
      orderEsim: async ({ transactionId }: { transactionId: string }) => {
        if (transactionId === 'refused')
          throw new PartnerError({
            partner: 'eSIM Go',
            call: 'orders',
            code: 'x',
            kind: 'out_of_stock',
            retryable: false,
            attempts: 1,
            reason: 'no',
          });
        return { partnerOrderNo: `ref-${transactionId}` };
      },
      queryProfiles: async ({ partnerOrderNo }: { partnerOrderNo: string }) => ready(partnerOrderNo.slice('ref-'.length)),
    } as unknown as EsimPartner;
    const partners = partnerRegistry(
      { 'esim-go': esimGo, 'esim-access': { name: 'eSIM Access' } as unknown as EsimPartner },
      // 10 requests a second.
      { now: () => now, budgets: { 'esim-go': { secondsFor: (requests) => requests / 10 } } },
    );
    const order = (transactionId: string) => partners.of('esim-go').orderEsim({ transactionId, partnerCode: 'b', count: 1 });
    expect(partners.backlogSeconds('esim-go')).toBe(0);
    // Being ordered: six requests to come at 10 a second.
    const placing = order('a');
    expect(partners.backlogSeconds('esim-go')).toBeCloseTo(0.6);
    await placing;
    // Ordered: its eSIM's read, three requests, to come; two more ordered.
    await Promise.all(['b', 'c'].map(order));
    expect(partners.backlogSeconds('esim-go')).toBeCloseTo(0.9);
    await partners.of('esim-go').queryProfiles({ partnerOrderNo: 'ref-a' });
    expect(partners.backlogSeconds('esim-go')).toBeCloseTo(0.6);
    await expect(order('refused')).rejects.toThrow(PartnerError);
    expect(partners.backlogSeconds('esim-go')).toBeCloseTo(0.6);
    // A partner without a budget the registry knows: nothing to weigh.
    expect(partners.backlogSeconds('esim-access')).toBe(0);
    // Never read (refunded, restarted): no longer counted.
    now += DELIVERY_IN_FLIGHT_MAX_MS + 1;
    expect(partners.backlogSeconds('esim-go')).toBe(0);
  });

  it('end once sent when the order answers the eSIM, or when the partner says later where it is read (any instance)', async () => {
    let release = () => {};
    const sent = new Promise<void>((resolve) => (release = resolve));
    const partner = (answer: object, notifiesAllocation: boolean) =>
      ({
        name: 'p',
        notifiesAllocation,
        requestsPerDelivery: { order: 1, read: 1 },
        orderEsim: async () => (await sent, { partnerOrderNo: 'ref', ...answer }),
      }) as unknown as EsimPartner;
    const partners = partnerRegistry(
      { answers: partner({ profiles: [{ transactionId: 'a' }] }, false), notifies: partner({}, true) },
      { budgets: { answers: { secondsFor: (n) => n }, notifies: { secondsFor: (n) => n } } },
    );
    const placing = ['answers', 'notifies'].map((id) => partners.of(id).orderEsim({ transactionId: 'a', partnerCode: 'b', count: 1 }));
    // Being sent: both its requests to come.
    expect([partners.backlogSeconds('answers'), partners.backlogSeconds('notifies')]).toEqual([2, 2]);
    release();
    await Promise.all(placing);
    expect([partners.backlogSeconds('answers'), partners.backlogSeconds('notifies')]).toEqual([0, 0]);
  });
});

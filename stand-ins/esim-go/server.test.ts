import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEsimGoStandIn, type EsimGoStandIn } from './server.ts';

// The stand-in's own protocol and refusals, with hand-made requests (the adapter's tests cover the rest).
const API_KEY = 'stand-in-test-key';
let standIn: EsimGoStandIn;
beforeEach(async () => {
  standIn = await startEsimGoStandIn({ apiKey: API_KEY });
});
afterEach(() => standIn.close());

async function api(method: string, path: string, options: { body?: unknown; key?: string | null; accept?: string; raw?: string } = {}) {
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  if (options.key !== null) headers['X-API-Key'] = options.key ?? API_KEY;
  if (options.body !== undefined || options.raw !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${standIn.url}${path}`, {
    method,
    headers,
    body: options.raw ?? (options.body === undefined ? null : JSON.stringify(options.body)),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: json as Record<string, unknown> & { message?: string } };
}

const order = (type: string, item = 'esim_1GB_7D_DE_V2', extra: Record<string, unknown> = {}) => ({
  type,
  assign: true,
  order: [{ type: 'bundle', quantity: 1, item, allowReassign: false, ...extra }],
});

async function buy(item = 'esim_1GB_7D_DE_V2'): Promise<{ iccid: string; orderReference: string }> {
  const placed = await api('POST', '/orders', { body: order('transaction', item) });
  expect(placed.status).toBe(200);
  const lines = placed.json['order'] as { iccids: string[] }[];
  return { iccid: lines[0]!.iccids[0]!, orderReference: placed.json['orderReference'] as string };
}

describe('authentication and bodies', () => {
  it('refuses a request without the API key, or with another, with 401 and its message, and does nothing', async () => {
    const none = await api('POST', '/orders', { body: order('transaction'), key: null });
    const wrong = await api('GET', '/organisation', { key: 'someone-else' });
    expect([none.status, wrong.status]).toEqual([401, 401]);
    expect(none.json.message).toMatch(/X-API-Key/);
    expect(standIn.orderCount).toBe(0);
  });

  it('refuses a body that is not JSON, and an order that is not a validate or a transaction, with 400', async () => {
    expect((await api('POST', '/orders', { raw: '{not json' })).status).toBe(400);
    const noType = await api('POST', '/orders', { body: { assign: true, order: [] } });
    expect(noType).toMatchObject({ status: 400, json: { message: 'type must be validate or transaction' } });
    const iccidsWithoutAssign = await api('POST', '/orders', {
      body: {
        type: 'validate',
        assign: false,
        order: [{ type: 'bundle', item: 'esim_1GB_7D_DE_V2', quantity: 1, iccids: ['8944000000000000000'] }],
      },
    });
    expect(iccidsWithoutAssign.status).toBe(400);
    expect((await api('GET', '/no/such')).status).toBe(404);
  });
});

describe('orders', () => {
  it('validates without charging, then a transaction charges the balance and assigns a new eSIM', async () => {
    const before = standIn.balance;
    const validated = await api('POST', '/orders', { body: order('validate') });
    expect(validated).toMatchObject({ status: 200, json: { valid: true, currency: 'USD', total: expect.any(Number) } });
    expect(standIn.balance).toBe(before);
    expect(standIn.esimCount).toBe(0);

    const { iccid, orderReference } = await buy();
    expect(iccid).toMatch(/^8944\d{15}$/);
    expect(standIn.balance).toBeCloseTo(before - (validated.json['total'] as number), 2);
    const detail = await api('GET', `/orders/${orderReference}`);
    expect(detail.json).toMatchObject({ orderReference, status: 'completed', currency: 'USD' });
  });

  it('refuses an unknown bundle and an order above the balance, charging nothing', async () => {
    const unknown = await api('POST', '/orders', { body: order('transaction', 'esim_NOPE') });
    expect(unknown).toMatchObject({ status: 400, json: { message: 'Bundle esim_NOPE not found' } });
    standIn.setBalance(0.5);
    const poor = await api('POST', '/orders', { body: order('validate') });
    expect(poor).toMatchObject({ status: 400, json: { message: expect.stringMatching(/Insufficient balance/) } });
    expect((await api('POST', '/orders', { body: order('transaction') })).status).toBe(400);
    expect([standIn.balance, standIn.orderCount]).toEqual([0.5, 0]);
  });

  it('refuses a bundle of another provider on an eSIM, unless it may go to a new eSIM (allowReassign)', async () => {
    const { iccid } = await buy();
    const incompatible = await api('POST', '/orders', { body: order('transaction', 'esim_1GB_7D_US_V2', { iccids: [iccid] }) });
    expect(incompatible).toMatchObject({ status: 400, json: { message: `Bundle esim_1GB_7D_US_V2 is not compatible with eSIM ${iccid}` } });
    expect(await api('GET', `/esims/${iccid}/compatible/esim_1GB_7D_US_V2`)).toMatchObject({ json: { compatible: false } });
    const reassigned = await api('POST', '/orders', {
      body: order('transaction', 'esim_1GB_7D_US_V2', { iccids: [iccid], allowReassign: true }),
    });
    expect((reassigned.json['order'] as { iccids: string[] }[])[0]!.iccids[0]).not.toBe(iccid);
  });
});

describe('install details and eSIMs', () => {
  it('answers CSV without Accept: application/json, one object for one eSIM with it', async () => {
    const { iccid, orderReference } = await buy();
    const csv = await api('GET', `/esims/assignments?reference=${orderReference}`, { accept: '*/*' });
    expect(csv.headers.get('content-type')).toBe('text/csv');
    expect(csv.text.split('\n')[1]).toMatch(new RegExp(`^${iccid},`));
    const json = await api('GET', `/esims/assignments?reference=${orderReference}`);
    expect(json.json).toMatchObject({ iccid, smdpAddress: 'rsp.esim-go.stand-in.invalid', profileStatus: 'Released' });
    expect((await api('GET', '/esims/assignments?reference=nope')).status).toBe(404);
  });

  it('answers 503 Processing with Retry-After while a new order is processed', async () => {
    await standIn.close();
    standIn = await startEsimGoStandIn({ apiKey: API_KEY, processingMs: 60_000 });
    const { orderReference, iccid } = await buy();
    const processing = await api('GET', `/esims/assignments?reference=${orderReference}`);
    expect([processing.status, processing.headers.get('retry-after')]).toEqual([503, '1']);
    const bundles = await api('GET', `/esims/${iccid}/bundles`);
    expect(bundles.json).toMatchObject({ bundles: [{ assignments: [{ bundleState: 'processing' }] }] });
  });

  it('filters eSIMs by customerRef, by a like search or exactly', async () => {
    const first = await buy();
    const second = await buy();
    expect((await api('PUT', '/esims', { body: { iccid: first.iccid, customerRef: 'order-12' } })).json).toEqual({ status: 'success' });
    await api('PUT', `/esims?iccid=${second.iccid}&customerRef=order-123`);
    const like = await api('GET', '/esims?filterBy=customerRef&filter=order-12');
    expect((like.json['esims'] as { iccid: string }[]).map((e) => e.iccid).sort()).toEqual([first.iccid, second.iccid].sort());
    const exact = await api('GET', '/esims?filterBy=customerRef&filter=eq:order-12');
    expect((exact.json['esims'] as { iccid: string }[]).map((e) => e.iccid)).toEqual([first.iccid]);
    expect((await api('GET', '/esims/8944000000000000000')).status).toBe(403);
  });
});

describe('revoking bundles', () => {
  it('refunds an unused bundle to the balance, and the returns process takes the uninstalled eSIM left without bundles', async () => {
    const { iccid } = await buy();
    const after = standIn.balance;
    const plan = await api('DELETE', `/esims/${iccid}/bundles/esim_1GB_7D_DE_V2?type=validate&refundToBalance=true`);
    expect(plan.json.status).toMatch(/refunded to balance/);
    expect(standIn.balance).toBe(after);
    const done = await api('DELETE', `/esims/${iccid}/bundles/esim_1GB_7D_DE_V2?type=transaction&refundToBalance=true`);
    expect(done.json).toEqual({ status: 'Successfully Revoked Bundle, bundle has been refunded to balance' });
    expect(standIn.balance).toBeGreaterThan(after);
    expect((await api('GET', `/esims/${iccid}`)).status).toBe(403);
  });

  it('refuses a refund of a started bundle, and revokes without a refund when refunds are not enabled', async () => {
    const started = await buy();
    standIn.useData(started.iccid, 1_000_000);
    const refused = await api('DELETE', `/esims/${started.iccid}/bundles/esim_1GB_7D_DE_V2?refundToBalance=true`);
    expect(refused).toMatchObject({ status: 400, json: { message: 'Bundle esim_1GB_7D_DE_V2 cannot be refunded: it has been started' } });

    standIn.setRefundsEnabled(false);
    const unused = await buy();
    const balance = standIn.balance;
    const plan = await api('DELETE', `/esims/${unused.iccid}/bundles/esim_1GB_7D_DE_V2?type=validate&refundToBalance=true`);
    expect(plan.json.status).toMatch(/without a refund/);
    await api('DELETE', `/esims/${unused.iccid}/bundles/esim_1GB_7D_DE_V2?refundToBalance=true`);
    expect(standIn.balance).toBe(balance);
  });
});

describe('rate limit', () => {
  it('has the documented default: 10 requests a second, said in X-RateLimit-* headers', async () => {
    const ok = await api('GET', '/organisation');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('10');
    expect(ok.headers.get('x-ratelimit-cost')).toBe('1');
    expect(Date.parse(ok.headers.get('x-ratelimit-reset')!) - Date.now()).toBeLessThanOrEqual(1000);
  });

  it('answers the request over the limit of a fixed window 429 with Retry-After, per client address, unauthenticated ones too', async () => {
    await standIn.close();
    // A minute-long window, so the burst cannot straddle two (waited out near a window's end).
    standIn = await startEsimGoStandIn({ apiKey: API_KEY, rateLimit: { requests: 10, perMs: 60_000 } });
    if (Date.now() % 60_000 > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 50));
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await api('GET', '/organisation', { key: i === 0 ? null : API_KEY }));
    expect(answers.map((a) => a.status)).toEqual([401, ...Array(9).fill(200), 429]);
    expect(answers.slice(0, 10).map((a) => Number(a.headers.get('x-ratelimit-remaining')))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = answers[10]!;
    expect(refused.json).toEqual({ message: 'Rate limit exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(standIn.requests.at(-1)).toMatchObject({
      call: 'GET /organisation',
      status: 429,
      clientAddress: expect.stringMatching(/127\.0\.0\.1/),
    });
  }, 90_000);
});

describe('stand-ins stay out of the product', () => {
  it('no file under src/ imports the eSIM Go stand-in', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(files.filter((f) => readFileSync(`src/${f}`, 'utf8').includes('stand-ins/esim-go'))).toEqual([]);
  });
});

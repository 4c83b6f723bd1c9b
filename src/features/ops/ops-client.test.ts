import { describe, expect, it } from 'vitest';
import { createOpsClient, OpsError } from './ops-client.ts';
import { opsErrorText } from './ops-errors.ts';
import de from '../../../locales/de/ops.json';
import en from '../../../locales/en/ops.json';
import type { OpsMessages } from './ops-messages.ts';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

function client(answer: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const ops = createOpsClient({
    baseUrl: 'https://api.example/api',
    idToken: async () => 'token-1',
    fetch: async (url, init) => {
      calls.push({ url: String(url), init: init! });
      return answer(String(url), init!);
    },
  });
  return { ops, calls };
}

const caught = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('the back office client', () => {
  it('sends the ID token and parses the answer with the contract', async () => {
    const { ops, calls } = client(() => json(200, { uid: 'u1', email: 'a@b.example', role: 'admin' }));
    expect(await ops.me()).toEqual({ uid: 'u1', email: 'a@b.example', role: 'admin' });
    expect(calls[0]!.url).toBe('https://api.example/api/ops/me');
    expect((calls[0]!.init.headers as Record<string, string>).Authorization).toBe('Bearer token-1');
  });

  it('posts an action with its body and key', async () => {
    const { ops, calls } = client(() => json(200, { action: 'refund', outcome: 'done', detail: null }));
    const body = { reason: 'asked by phone', idempotencyKey: 'key-12345678', amountMinor: 500 };
    expect(await ops.orderAction('o/1', 'refunds', body)).toEqual({ action: 'refund', outcome: 'done', detail: null });
    expect(calls[0]!.url).toBe('https://api.example/api/ops/orders/o%2F1/refunds');
    expect(calls[0]!.init.method).toBe('POST');
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual(body);
  });

  it('refuses an answer that is not the contract’s', async () => {
    const { ops } = client(() => json(200, { uid: 'u1', email: null, role: 'owner' }));
    expect(await caught(ops.me())).toMatchObject({ code: 'invalid_answer' });
  });

  it('turns failures into codes the pages translate', async () => {
    const m = en as OpsMessages;
    const forbidden = await caught(client(() => json(403, { error: { code: 'forbidden', message: 'no' } })).ops.me());
    expect(forbidden).toBeInstanceOf(OpsError);
    expect(opsErrorText(forbidden, m)).toBe(m.errors.forbidden);
    const conflict = await caught(client(() => json(409, { error: { code: 'conflict', message: 'already refunded' } })).ops.order('x'));
    expect(opsErrorText(conflict, m)).toBe("The order's state does not allow this now: already refunded");
    // A key another request used (issue 46): its own words in both languages, not the order state's conflict.
    const body = { reason: 'asked by phone', idempotencyKey: 'key-12345678' };
    const reused = await caught(
      client(() =>
        json(409, { error: { code: 'key_reused', message: 'This idempotency key was used for another request' } }),
      ).ops.orderAction('o1', 'refunds', body),
    );
    expect(opsErrorText(reused, m)).toBe(en.errors.key_reused);
    expect(opsErrorText(reused, de as OpsMessages)).toBe(de.errors.key_reused);
    // Support giving another address for the codes (issue 46): its own words, not the role's.
    const elsewhere = await caught(
      client(() => json(403, { error: { code: 'address_needs_admin', message: 'another address needs an admin' } })).ops.orderAction(
        'o1',
        'resend-email',
        { ...body, to: 'someone@example.com' },
      ),
    );
    expect(opsErrorText(elsewhere, m)).toBe(en.errors.address_needs_admin);
    expect(opsErrorText(elsewhere, de as OpsMessages)).toBe(de.errors.address_needs_admin);
    const odd = await caught(client(() => new Response('<html>', { status: 502 })).ops.dashboard());
    expect(odd).toMatchObject({ code: 'http_502', status: 502 });
    expect(opsErrorText(odd, m)).toBe(m.errors.server);
    const down = await caught(client(() => Promise.reject(new TypeError('fetch failed'))).ops.me());
    expect(opsErrorText(down, m)).toBe(m.errors.network);
    const limited = await caught(client(() => json(429, { error: { code: 'whatever', message: '' } })).ops.me());
    expect(opsErrorText(limited, m)).toBe(m.errors.too_many_requests);
  });

  it('downloads the CSV as a Blob with the token', async () => {
    const { ops, calls } = client(() => new Response('number\r\nES-1\r\n', { status: 200, headers: { 'Content-Type': 'text/csv' } }));
    const blob = await ops.ordersCsv({ from: '2026-01-01', to: '' });
    expect(await blob.text()).toBe('number\r\nES-1\r\n');
    expect(calls[0]!.url).toBe('https://api.example/api/ops/reports/orders.csv?from=2026-01-01');
  });
});

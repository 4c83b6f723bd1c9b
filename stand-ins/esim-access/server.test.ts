import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { esimAccessHeaders } from '../../tests/support/esim-access-requests.ts';
import { startEsimAccessStandIn, type EsimAccessStandIn } from './server.ts';

// The stand-in's own protocol checks, with hand-made requests (the adapter's tests cover the rest).
const accessCode = 'code';
const secretKey = 'secret';
let standIn: EsimAccessStandIn;
beforeEach(async () => {
  standIn = await startEsimAccessStandIn({ accessCode, secretKey });
});
afterEach(() => standIn.close());

function signedHeaders(body: string, overrides: Record<string, string> = {}): Record<string, string> {
  const timestamp = overrides['RT-Timestamp'];
  return { ...esimAccessHeaders({ accessCode, secretKey }, body, { requestId: 'a1b2c3', timestamp }), ...overrides };
}

async function post(body: string, headers = signedHeaders(body), path = '/api/v1/open/package/list') {
  const response = await fetch(`${standIn.url}${path}`, { method: 'POST', headers, body });
  return { status: response.status, envelope: (await response.json()) as { success: boolean; errorCode: string | null; obj: unknown } };
}

describe('eSIM Access stand-in', () => {
  it('answers a signed package/list in the envelope', async () => {
    const { status, envelope } = await post('{"locationCode":"JP","type":"BASE"}');
    expect(status).toBe(200);
    expect(envelope).toMatchObject({ success: true, errorCode: null });
    const { packageList } = envelope.obj as { packageList: { slug: string; currencyCode: string }[] };
    expect(packageList.map((p) => p.slug)).toEqual(expect.arrayContaining(['JP_1_7']));
    expect(packageList.every((p) => p.slug.startsWith('JP_') && p.currencyCode === 'USD')).toBe(true);
  });

  it("filters regional ('!RG') and global ('!GL') packages", async () => {
    const slugs = async (locationCode: string) =>
      ((await post(JSON.stringify({ locationCode }))).envelope.obj as { packageList: { slug: string }[] }).packageList.map((p) => p.slug);
    const regional = await slugs('!RG');
    expect(regional).toContain('EU-54_1_7');
    expect(regional.some((s) => s.startsWith('GL-') || /^[A-Z]{2}_/.test(s))).toBe(false);
    expect((await slugs('!GL')).every((s) => s.startsWith('GL-'))).toBe(true);
  });

  it("refuses what the partner refuses, with the partner's codes", async () => {
    const body = '{}';
    const { 'RT-Signature': _, ...unsigned } = signedHeaders(body);
    const codes = [
      (await post(body, unsigned)).envelope.errorCode,
      (await post(body, signedHeaders(body, { 'RT-Signature': 'ab'.repeat(32) }))).envelope.errorCode,
      (await post(body, signedHeaders(body, { 'RT-Timestamp': String(Date.now() - 10 * 60_000) }))).envelope.errorCode,
      (await post('{not json', signedHeaders('{not json'))).envelope.errorCode,
    ];
    expect(codes).toEqual(['000101', '101003', '101001', '000104']);
    const unknown = await post(body, signedHeaders(body), '/api/v1/open/no/such');
    expect(unknown.status).toBe(404);
  });

  it('refuses esim/usage/query for more than 10 eSIMs in its envelope, and takes 10', async () => {
    const list = (n: number) =>
      JSON.stringify({ esimTranNoList: Array.from({ length: n }, (_, i) => `2503030348${String(i).padStart(4, '0')}`) });
    const eleven = await post(list(11), signedHeaders(list(11)), '/api/v1/open/esim/usage/query');
    expect(eleven.status).toBe(200);
    expect(eleven.envelope).toMatchObject({ success: false, errorCode: '000105', obj: null });
    const ten = await post(list(10), signedHeaders(list(10)), '/api/v1/open/esim/usage/query');
    expect(ten.envelope).toMatchObject({ success: true, errorCode: null });
  });

  it('answers the 9th request within a second with HTTP 429 and 900001', async () => {
    const answers = await Promise.all(Array.from({ length: 9 }, () => post('{}')));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.map((a) => a.envelope.errorCode)).toEqual(['900001']);
  });
});

describe('stand-ins stay out of the product', () => {
  it('no file under src/ imports from stand-ins/', () => {
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|tsx|astro|mjs|js)$/.test(f));
    const offenders = files.filter((f) => /from\s+['"][^'"]*stand-ins\//.test(readFileSync(join('src', f), 'utf8')));
    expect(offenders.filter((f) => !f.endsWith('.test.ts'))).toEqual([]);
  });
});

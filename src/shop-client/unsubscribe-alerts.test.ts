import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsubscribeAlerts } from './unsubscribe-alerts.ts';

// Over real HTTP against a local server that answers what each case sets.
let answer = { status: 200, body: '' };
const received: { method: string; url: string }[] = [];
const server = createServer((request, response) => {
  received.push({ method: request.method!, url: request.url! });
  response.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body);
});
let baseUrl: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('unsubscribeAlerts', () => {
  it('posts the token, encoded, and answers the kind the API stopped', async () => {
    answer = { status: 200, body: JSON.stringify({ kind: 'data_used_up' }) };
    expect(await unsubscribeAlerts(baseUrl, 'a.b+c/d')).toEqual({ status: 'done', kind: 'data_used_up' });
    expect(received.at(-1)).toEqual({ method: 'POST', url: '/api/alerts/unsubscribe?token=a.b%2Bc%2Fd' });
  });

  it.each([
    ['a token the API did not sign (400)', 'invalid', 400, JSON.stringify({ error: { code: 'invalid_token', message: 'x' } })],
    ['a server error', 'failed', 500, '{}'],
    ['a kind without e-mail, which no link names', 'failed', 200, JSON.stringify({ kind: 'esim_ready' })],
    ['an answer that is not JSON', 'failed', 200, '<html>'],
  ])('%s: %s', async (_, outcome, status, body) => {
    answer = { status, body };
    expect(await unsubscribeAlerts(baseUrl, 'token')).toEqual({ status: outcome });
  });

  it('calls an unreachable API failed, which the page offers to retry', async () => {
    expect(await unsubscribeAlerts('http://127.0.0.1:1/api', 'token')).toEqual({ status: 'failed' });
  });
});

import webPush from 'web-push';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_ALERTS } from '../../tests/support/alert-keys.ts';
import { pushSubscriber } from '../../tests/support/push-subscriber.ts';
import { pushServiceStandInAt } from './remote.ts';
import { startPushServiceStandIn, type PushServiceStandIn } from './server.ts';

let service: PushServiceStandIn;
beforeAll(async () => {
  service = await startPushServiceStandIn({ applicationServerKey: TEST_ALERTS.vapid.publicKey });
});
afterAll(() => service.close());

const message = { kind: 'data_80', title: 'Datos', body: 'Queda 20 %', url: '/es/my-esims', tag: 'esim-1-data_80', lang: 'es' } as const;

/** What web-push would send to the subscription, sent by fetch (as the shop's sender does). */
async function send(
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
  options: webPush.RequestOptions = {},
  authorization?: string,
) {
  const request = webPush.generateRequestDetails(subscription, JSON.stringify(message), {
    vapidDetails: TEST_ALERTS.vapid,
    TTL: 3600,
    urgency: 'high',
    contentEncoding: 'aes128gcm',
    topic: 'esim1data80',
    ...options,
  });
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  if (authorization) headers['Authorization'] = authorization;
  return fetch(request.endpoint, { method: 'POST', headers, body: new Uint8Array(request.body) });
}

it('takes an encrypted, VAPID-signed message with 201 and a Location, and keeps it for the subscriber to decrypt', async () => {
  const device = pushSubscriber(service, 'es');
  const response = await send(device.subscription);
  expect(response.status).toBe(201);
  expect(response.headers.get('location')).toMatch(new RegExp(`^${service.url}/message/`));
  expect(service.messages.at(-1)).toMatchObject({
    id: device.id,
    ttl: 3600,
    urgency: 'high',
    topic: 'esim1data80',
    subject: 'mailto:alerts@example.com',
  });
  expect(device.received()).toEqual([message]);
  // Only the subscription's own keys decrypt it.
  expect(() => pushSubscriber(service).read(service.messages.at(-1)!)).toThrow();
});

it('refuses a message without a VAPID token (401), or with one that is forged, for another origin or by another key (403)', async () => {
  const device = pushSubscriber(service);
  const other = webPush.generateVAPIDKeys();
  const header = (audience: string, keys: { publicKey: string; privateKey: string } = TEST_ALERTS.vapid) =>
    webPush.getVapidHeaders(audience, 'mailto:alerts@example.com', keys.publicKey, keys.privateKey, 'aes128gcm').Authorization;
  const forged = header(service.url).replace(/k=[\w-]+/, `k=${other.publicKey}`);
  const refusal = async (response: Response) => [response.status, ((await response.json()) as { reason: string }).reason];
  expect(await refusal(await send(device.subscription, {}, 'WebPush nothing'))).toEqual([401, 'no vapid authorization']);
  expect(await refusal(await send(device.subscription, {}, forged))).toEqual([403, 'bad signature']);
  expect(await refusal(await send(device.subscription, {}, header('https://push.example.net')))).toEqual([
    403,
    `aud is not ${service.url}`,
  ]);
  expect(await refusal(await send(device.subscription, {}, header(service.url, other)))).toEqual([
    403,
    'not the subscription’s application server key',
  ]);
  expect(device.received()).toEqual([]);
});

it('answers as told per subscription, set in the test or over its HTTP control, which lists what came', async () => {
  const gone = pushSubscriber(service);
  const busy = pushSubscriber(service);
  service.setAnswer(gone.id, 410);
  const control = await fetch(`${service.url}/_stand-in/answers/${busy.id}`, { method: 'PUT', body: JSON.stringify({ status: 500 }) });
  expect(control.status).toBe(204);
  expect((await send(gone.subscription)).status).toBe(410);
  expect((await send(busy.subscription)).status).toBe(500);
  const listed = (await (await fetch(`${service.url}/_stand-in/messages?id=${busy.id}`)).json()) as {
    id: string;
    status: number;
    body: string;
  }[];
  expect(listed).toMatchObject([{ id: busy.id, status: 500 }]);
  expect(busy.read({ ...service.messages.at(-1)!, body: Buffer.from(listed[0]!.body, 'base64url') })).toEqual(message);
  service.setAnswer(gone.id, 201);
  expect((await send(gone.subscription)).status).toBe(201);
});

it("holds a message told to 'hang' without an answer, as a stalled push service does; another process reads what came", async () => {
  const stalled = pushSubscriber(service);
  const control = await fetch(`${service.url}/_stand-in/answers/${stalled.id}`, {
    method: 'PUT',
    body: JSON.stringify({ status: 'hang' }),
  });
  expect(control.status).toBe(204);
  const request = webPush.generateRequestDetails(stalled.subscription, JSON.stringify(message), {
    vapidDetails: TEST_ALERTS.vapid,
    contentEncoding: 'aes128gcm',
  });
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  const sent = fetch(request.endpoint, { method: 'POST', headers, body: new Uint8Array(request.body), signal: AbortSignal.timeout(500) });
  await expect(sent).rejects.toThrow(/timeout|aborted/i);
  const remote = pushServiceStandInAt(service.url);
  expect(remote.endpoint('x')).toBe(service.endpoint('x'));
  expect(stalled.read(await remote.waitFor((m) => m.id === stalled.id))).toEqual(message);
  expect((await remote.received(stalled.id)).map((m) => m.status)).toEqual(['hang']);
});

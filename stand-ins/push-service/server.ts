import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { receivedLog, type ReceivingStandIn } from '../received-log.ts';

/**
 * A local push service (RFC 8030; dev and tests only, nothing under src/ imports it): it takes what
 * the shop's sender (the `web-push` library) sends to a subscription's endpoint, checks the VAPID
 * token as a real push service does (RFC 8292), keeps each message's encrypted body for the test to
 * decrypt with the subscription's own keys (tests/support/push-subscriber.ts), and answers 201, or
 * what a test asked for that subscription (404 or 410: gone; 429, 500: try later; 'hang': never).
 */

/** An HTTP status, or 'hang': the request is read and never answered (a push service that stalls). */
export type PushAnswer = number | 'hang';

export interface ReceivedPushMessage {
  /** The subscription: the last part of its endpoint, /push/<id>. */
  id: string;
  /** What the stand-in answered (201 unless told otherwise; 'hang': nothing). */
  status: PushAnswer;
  ttl: number;
  urgency: string;
  topic: string | undefined;
  contentEncoding: string;
  /** The VAPID token's subject (the sender's contact) and key. */
  subject: string;
  vapidKey: string;
  /** Encrypted (aes128gcm, RFC 8291), as received. */
  body: Buffer;
  receivedAt: Date;
}

export interface PushServiceStandIn extends ReceivingStandIn<ReceivedPushMessage> {
  /** http://127.0.0.1:<port>, the origin every VAPID token's `aud` must name. */
  url: string;
  /** A new subscription's endpoint on this service (a random id unless given). */
  endpoint(id?: string): string;
  /** From now on, messages to this subscription are answered `status` (201 again to accept them). */
  setAnswer(id: string, status: PushAnswer): void;
  /** Every message received with a valid token, in order (also those answered with an error). */
  messages: ReceivedPushMessage[];
}

export interface PushServiceStandInOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /**
   * The application server key subscriptions were made with (the shop's VAPID public key): a token
   * signed by any other key is refused with 403, as a restricted subscription's would be (RFC 8292
   * section 4.2). Unset: any correctly signed token is taken.
   */
  applicationServerKey?: string;
  onMessage?: (message: ReceivedPushMessage) => void;
}

/** RFC 8030 section 5.3, and RFC 8292 section 3.2: the values a sender may give. */
const URGENCIES = new Set(['very-low', 'low', 'normal', 'high']);
/** RFC 8291 section 4: a push service accepts at least 4096 bytes of encrypted payload; this one no more. */
const MAX_BODY_BYTES = 4096;
/** RFC 8292 section 2: a token's expiry no further than 24 hours ahead. */
const MAX_TOKEN_LIFETIME_S = 24 * 60 * 60;

/** Why a VAPID `Authorization` header is refused, or undefined when it is valid for `origin`. */
function vapidRefusal(header: string | undefined, origin: string, applicationServerKey: string | undefined) {
  // RFC 8292 section 3: Authorization: vapid t=<JWT>, k=<the signer's public key, base64url>.
  const match = /^vapid\s+(?=.*\bt=([\w-]+\.[\w-]+\.[\w-]+))(?=.*\bk=([\w-]+))/i.exec(header ?? '');
  if (!match) return { status: 401, reason: 'no vapid authorization' } as const;
  const [, token, key] = match as unknown as [string, string, string];
  const [encodedHeader, encodedClaims, signature] = token.split('.') as [string, string, string];
  const raw = Buffer.from(key, 'base64url');
  let claims: { aud?: unknown; exp?: unknown; sub?: unknown };
  let valid: boolean;
  try {
    if (raw.length !== 65 || raw[0] !== 4) throw new Error('not an uncompressed P-256 point');
    const publicKey = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    const { alg } = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8')) as { alg?: unknown };
    claims = JSON.parse(Buffer.from(encodedClaims, 'base64url').toString('utf8')) as typeof claims;
    // RFC 8292 section 3.1 (RFC 7518): ES256, the signature as r || s.
    valid =
      alg === 'ES256' &&
      verify(
        'sha256',
        Buffer.from(`${encodedHeader}.${encodedClaims}`),
        { key: publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      );
  } catch {
    return { status: 403, reason: 'malformed token or key' } as const;
  }
  if (!valid) return { status: 403, reason: 'bad signature' } as const;
  const now = Date.now() / 1000;
  if (claims.aud !== origin) return { status: 403, reason: `aud is not ${origin}` } as const;
  if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp > now + MAX_TOKEN_LIFETIME_S)
    return { status: 403, reason: 'exp not within 24 hours' } as const;
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) return { status: 403, reason: 'no sub contact' } as const;
  if (applicationServerKey && key !== applicationServerKey.replace(/=+$/, ''))
    return { status: 403, reason: 'not the subscription’s application server key' } as const;
  return { subject: claims.sub, key };
}

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const answer = (response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, body === undefined ? headers : { 'Content-Type': 'application/json', ...headers });
  response.end(body === undefined ? undefined : JSON.stringify(body));
};

/** What the HTTP control (GET /_stand-in/messages) lists: the body as base64url. */
export const messageAsJson = (message: ReceivedPushMessage) => ({ ...message, body: message.body.toString('base64url') });

export async function startPushServiceStandIn(options: PushServiceStandInOptions = {}): Promise<PushServiceStandIn> {
  const received = receivedLog<ReceivedPushMessage>('push-service stand-in');
  const answers = new Map<string, PushAnswer>();
  let origin = '';

  async function push(request: IncomingMessage, response: ServerResponse, id: string) {
    const auth = vapidRefusal(request.headers.authorization, origin, options.applicationServerKey);
    if ('status' in auth) return answer(response, auth.status, { reason: auth.reason });
    // RFC 8030 section 5.2: TTL is required; RFC 8291 section 4: the payload in aes128gcm.
    const header = (name: string) => [request.headers[name]].flat()[0];
    const ttl = Number(header('ttl'));
    if (!/^\d+$/.test(header('ttl') ?? '')) return answer(response, 400, { reason: 'TTL header required' });
    if (header('content-encoding') !== 'aes128gcm') return answer(response, 415, { reason: 'Content-Encoding must be aes128gcm' });
    const urgency = header('urgency') ?? 'normal';
    if (!URGENCIES.has(urgency)) return answer(response, 400, { reason: 'bad Urgency' });
    const topic = header('topic');
    if (topic !== undefined && !/^[\w-]{1,32}$/.test(topic)) return answer(response, 400, { reason: 'bad Topic' });
    const body = await readBody(request, MAX_BODY_BYTES);
    if (!body) return answer(response, 413, { reason: `payload over ${MAX_BODY_BYTES} bytes` });
    const status = answers.get(id) ?? 201;
    const message: ReceivedPushMessage = {
      id,
      status,
      ttl,
      urgency,
      topic,
      contentEncoding: 'aes128gcm',
      subject: auth.subject,
      vapidKey: auth.key,
      body,
      receivedAt: new Date(),
    };
    received.add(message);
    options.onMessage?.(message);
    // The connection stays open until the sender gives up or the stand-in closes.
    if (status === 'hang') return;
    // RFC 8030 section 5: 201 Created, the message's own resource in Location.
    return answer(response, status, undefined, status === 201 ? { Location: `${origin}/message/${randomUUID()}` } : {});
  }

  /** The HTTP control, for tests in another process (the browser tests). */
  async function control(request: IncomingMessage, response: ServerResponse, path: string) {
    if (request.method === 'GET' && path === '/_stand-in/messages') {
      const id = new URL(request.url!, origin).searchParams.get('id');
      return answer(response, 200, received.entries.filter((m) => id === null || m.id === id).map(messageAsJson));
    }
    const setting = /^\/_stand-in\/answers\/([\w-]+)$/.exec(path);
    if (request.method === 'PUT' && setting) {
      const { status } = JSON.parse((await readBody(request, 1_000))?.toString('utf8') || '{}') as { status?: unknown };
      if (status !== 'hang' && (typeof status !== 'number' || status < 200 || status > 599))
        return answer(response, 400, { reason: "status: an HTTP status, or 'hang'" });
      answers.set(setting[1]!, status);
      return answer(response, 204);
    }
    return answer(response, 404, { reason: 'no such control' });
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url!, 'http://stand-in').pathname;
    const pushTo = /^\/push\/([\w-]+)$/.exec(path);
    const handled =
      request.method === 'POST' && pushTo
        ? push(request, response, pushTo[1]!)
        : path.startsWith('/_stand-in/')
          ? control(request, response, path)
          : Promise.resolve(answer(response, 404, { reason: 'no such subscription resource' }));
    handled.catch(() => answer(response, 400, { reason: 'bad request' }));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolveListen());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    endpoint: (id = randomUUID()) => `${origin}/push/${id}`,
    setAnswer: (id, status) => void answers.set(id, status),
    messages: received.entries,
    waitFor: received.waitFor,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

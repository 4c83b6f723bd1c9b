import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { setReachable } from '../../../stand-ins/http-parts.ts';
import type { Random } from './random.ts';

/**
 * An HTTP proxy that injects faults between the shop and a provider (the Stripe stand-in's API,
 * the eSIM Access stand-in), each request at random with probability `rate`, the kind drawn from
 * the same seeded stream:
 * - `lost_answer`: forwarded, the provider applied it and answered, then the client's connection
 *   is destroyed (the answer never arrives: the shop cannot know it was applied);
 * - `slow_answer`: forwarded and answered, but the answer is held past the client's timeout;
 * - `error_before`: a 5xx answered without forwarding (nothing applied);
 * - `error_after`: forwarded and applied, then a 5xx answered instead of the provider's answer.
 * It counts each kind injected. Requests the `eligible` test refuses are only forwarded. `setDown`
 * stands for an outage of the provider: the proxy stops listening (connections refused) and drops
 * the open ones, until it is set up again.
 */
export const FAULT_KINDS = ['lost_answer', 'slow_answer', 'error_before', 'error_after'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultCounts = Record<FaultKind, number>;

export interface FaultProxyOptions {
  /** Where requests go: `http://127.0.0.1:<port>`. */
  upstream: string;
  random: Random;
  /** The probability that a request meets a fault, 0 to 1. */
  rate: number;
  /** Another probability for some paths (a call whose faults the run must meet often); undefined: `rate`. */
  rateFor?: (path: string) => number | undefined;
  /** How long a slow answer is held: longer than the client's timeout. */
  slowMs: number;
  /** Which requests may meet a fault (default: all). */
  eligible?: (method: string, path: string) => boolean;
  /** The 5xx the provider would answer (its own error body). */
  errorAnswer: (status: number) => { contentType: string; body: string };
  /** Names the requests whose faults are also counted apart (`countsByTag`): a Stripe refund asked for an operator, say. */
  tag?: (method: string, path: string, body: Buffer) => string | undefined;
}

export interface FaultProxy {
  url: string;
  /** Faults injected so far, by kind. */
  readonly counts: FaultCounts;
  /** The same, for the requests `tag` names, by tag. */
  readonly countsByTag: Record<string, FaultCounts>;
  /** Requests forwarded or answered so far (faulted or not). */
  readonly requests: number;
  /** While false, every request is forwarded untouched (the run's end). */
  enabled: boolean;
  /** The provider down (true: every connection refused, the open ones dropped) or up again. */
  setDown(down: boolean): Promise<void>;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The provider's answer, read whole. */
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export function forwardRequest(
  agent: Agent,
  upstream: URL,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  timeoutMs = 60_000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) outgoing[name] = value;
    outgoing.host = upstream.host;
    outgoing['content-length'] = String(body.length);
    const req = httpRequest(
      { agent, host: upstream.hostname, port: upstream.port, method, path, headers: outgoing, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${upstream.host} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export function writeAnswer(res: ServerResponse, answer: Answer): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  headers['content-length'] = String(answer.body.length);
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const upstream = new URL(options.upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const noFaults = () => Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as FaultCounts;
  const counts = noFaults();
  const countsByTag: Record<string, FaultCounts> = {};
  const sockets = new Set<Socket>();
  const held = new Set<NodeJS.Timeout>();
  let requests = 0;
  let enabled = true;

  const fault = (method: string, path: string): FaultKind | undefined => {
    if (!enabled || (options.eligible && !options.eligible(method, path))) return undefined;
    // Two draws every time, so the stream advances alike whether a fault is chosen or not.
    const [hit, kind] = [options.random(), options.random()];
    return hit < (options.rateFor?.(path) ?? options.rate) ? FAULT_KINDS[Math.floor(kind * FAULT_KINDS.length)] : undefined;
  };
  const error = (res: ServerResponse) => {
    if (res.destroyed || res.headersSent) return;
    const status = 500 + (requests % 2) * 3; // 500 or 503: both say nothing about whether it was applied
    const { contentType, body } = options.errorAnswer(status);
    res.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };

  const server = createServer(async (req, res) => {
    requests++;
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    let body: Buffer;
    try {
      body = await readBody(req);
    } catch {
      return void req.socket.destroy();
    }
    const pathname = new URL(path, 'http://proxy').pathname;
    const kind = fault(method, pathname);
    if (kind) {
      counts[kind]++;
      const tag = options.tag?.(method, pathname, body);
      if (tag) (countsByTag[tag] ??= noFaults())[kind]++;
    }
    if (kind === 'error_before') return error(res);
    let answer: Answer;
    try {
      answer = await forwardRequest(agent, upstream, method, path, req.headers, body);
    } catch {
      // The provider itself did not answer: so does the proxy.
      return void req.socket.destroy();
    }
    switch (kind) {
      case 'lost_answer':
        return void req.socket.destroy();
      case 'error_after':
        return error(res);
      case 'slow_answer': {
        // The client gives up meanwhile; if it is still there, it gets the answer late.
        const timer = setTimeout(() => {
          held.delete(timer);
          writeAnswer(res, answer);
        }, options.slowMs);
        held.add(timer);
        return;
      }
      default:
        return writeAnswer(res, answer);
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    countsByTag,
    get requests() {
      return requests;
    },
    get enabled() {
      return enabled;
    },
    set enabled(value: boolean) {
      enabled = value;
    },
    setDown: (down) => setReachable(server, port, !down),
    close: () =>
      new Promise<void>((done) => {
        for (const timer of held) clearTimeout(timer);
        if (!server.listening) done();
        else server.close(() => done());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      }),
  };
}

/** The eSIM Access envelope of its 'server error' (000001). */
export const partnerErrorAnswer = (status: number) => ({
  contentType: 'application/json',
  body: JSON.stringify({ success: false, errorCode: '000001', errorMsg: `Server error (fault proxy, HTTP ${status})`, obj: null }),
});

/** eSIM Go's error answer (`{ message }`, its API reference's ErrorResponse). */
export const esimGoErrorAnswer = (status: number) => ({
  contentType: 'application/json',
  body: JSON.stringify({ message: `Internal Server Error (fault proxy, HTTP ${status})` }),
});

/** Stripe's api_error body. */
export const stripeErrorAnswer = (status: number) => ({
  contentType: 'application/json',
  body: JSON.stringify({
    error: { type: 'api_error', message: `An error occurred with our connection to Stripe (fault proxy, HTTP ${status}).` },
  }),
});

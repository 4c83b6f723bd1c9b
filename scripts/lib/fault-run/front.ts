import { Agent, createServer } from 'node:http';
import type { Socket } from 'node:net';
import { forwardRequest, writeAnswer } from './fault-proxy.ts';

/**
 * A tiny round-robin front, as a load balancer before the API instances: buyers and both
 * stand-ins' webhooks go through it. An instance that refuses the connection (killed) is skipped
 * for the next; with none up it answers 503, so the stand-ins' webhooks fail and are retried (by
 * Stripe) or lost (by the partner, which does not retry: the reconcile job catches those). A request
 * in flight when its instance is killed answers 502: it may have been applied.
 */
export interface Front {
  url: string;
  /** Requests answered by an instance, 502 (instance died mid-request) and 503 (none up). */
  readonly counts: { answered: number; lost: number; noneUp: number };
  close(): Promise<void>;
}

export async function startFront(targets: () => readonly string[]): Promise<Front> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const counts = { answered: 0, lost: 0, noneUp: 0 };
  const sockets = new Set<Socket>();
  let next = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => req.socket.destroy());
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const live = [...targets()];
      for (let tried = 0; tried < live.length; tried++) {
        const target = live[next++ % live.length]!;
        try {
          const answer = await forwardRequest(agent, new URL(target), req.method ?? 'GET', req.url ?? '/', req.headers, body, 30_000);
          counts.answered++;
          return writeAnswer(res, answer);
        } catch (error) {
          // Refused: the request never reached it (killed, not yet listening); another may take it.
          if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') continue;
          counts.lost++;
          return json(res, 502, 'The API instance failed while answering.');
        }
      }
      counts.noneUp++;
      return json(res, 503, 'No API instance is up.');
    });
  });
  function json(res: import('node:http').ServerResponse, status: number, message: string) {
    if (res.headersSent || res.destroyed) return;
    const body = JSON.stringify({ error: { code: 'unavailable', message } });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  }
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 2_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        for (const socket of sockets) socket.destroy();
        agent.destroy();
      }),
  };
}

import type { IncomingMessage, Server } from 'node:http';

/** What the partners' stand-ins do alike over HTTP: read a request, post a notification, listen on loopback. */

/** A request's whole body as text, for the partners' stand-ins (JSON APIs, small bodies). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The body's JSON, or undefined when it is none: the stand-in answers that as the partner does. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Posts a partner stand-in's notification to the shop, once (neither partner promises
 * redelivery), and records the answer's HTTP status on `sent`: 0 when the shop could not be reached.
 */
export function postNotification(url: string, body: string, headers: Record<string, string>, sent: { status: number | null }) {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(5_000),
  })
    .then(async (response) => {
      sent.status = response.status;
      await response.body?.cancel();
    })
    .catch(() => {
      sent.status ??= 0;
    });
}

/** Listens on 127.0.0.1 only (a free port unless given) and answers the port it got. */
export async function listenLocally(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * A provider's outage: the server stops listening, so a new connection is refused, and drops the
 * ones open (a request on them gets no answer); reachable again, it listens on the same port.
 */
export async function setReachable(server: Server, port: number, reachable: boolean): Promise<void> {
  if (reachable === server.listening) return;
  if (reachable) {
    await listenLocally(server, port);
    return;
  }
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

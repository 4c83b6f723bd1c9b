import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Encoding = 'br' | 'gzip';

const COMPRESSIBLE = /^(text\/|application\/(javascript|json|manifest\+json|xml)|image\/svg\+xml)/;

function preferredEncoding(headers: IncomingHttpHeaders): Encoding | undefined {
  const accept = String(headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accept)) return 'br';
  if (/\bgzip\b/.test(accept)) return 'gzip';
  return undefined;
}

/**
 * Compresses a server's text answers (brotli, else gzip, as the browser accepts) the way Firebase
 * Hosting does in production, so that Lighthouse's simulated slow 4G downloads the bytes a phone
 * would download, not the uncompressed files. Wraps the server's own request handler; each body
 * is compressed once (brotli quality 11, gzip level 9, as the byte figures are computed) and
 * kept, so compression adds no latency after the first answer.
 */
export function withCompression(server: Server): Server {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  const cache = new Map<string, Buffer>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const encoding = preferredEncoding(req.headers);
    if (encoding && req.method === 'GET') compressOnEnd(res, encoding, cache);
    for (const handler of handlers) handler(req, res);
  });
  return server;
}

/** Holds back the head and body of `res` and sends them compressed when the handler ends. */
function compressOnEnd(res: ServerResponse, encoding: Encoding, cache: Map<string, Buffer>): void {
  const writeHead = res.writeHead.bind(res);
  const end = res.end.bind(res);
  const chunks: Buffer[] = [];
  let status = 200;
  let headArgs: OutgoingHttpHeaders = {};
  const toBuffer = (chunk: unknown) => (typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));

  res.writeHead = ((code: number, ...rest: unknown[]) => {
    status = code;
    const headers = rest.find((arg) => typeof arg === 'object' && arg !== null);
    if (headers) headArgs = { ...(headers as OutgoingHttpHeaders) };
    return res;
  }) as ServerResponse['writeHead'];
  res.write = ((chunk: unknown) => {
    if (chunk !== undefined && typeof chunk !== 'function') chunks.push(toBuffer(chunk));
    return true;
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown) => {
    if (chunk !== undefined && typeof chunk !== 'function') chunks.push(toBuffer(chunk));
    const body = Buffer.concat(chunks);
    const headers = Object.fromEntries(Object.entries(headArgs).filter(([name]) => !/^content-length$/i.test(name)));
    const type = String(
      Object.entries(headArgs).find(([name]) => /^content-type$/i.test(name))?.[1] ?? res.getHeader('content-type') ?? '',
    );
    if (body.length === 0 || (status !== 200 && status !== 404) || !COMPRESSIBLE.test(type)) {
      writeHead(status, { ...headers, 'Content-Length': body.length });
      return end(body);
    }
    const key = `${encoding} ${createHash('sha1').update(body).digest('hex')}`;
    let compressed = cache.get(key);
    if (!compressed) {
      compressed =
        encoding === 'br'
          ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
          : gzipSync(body, { level: 9 });
      cache.set(key, compressed);
    }
    res.removeHeader('content-length');
    writeHead(status, { ...headers, 'Content-Encoding': encoding, Vary: 'Accept-Encoding', 'Content-Length': compressed.length });
    return end(compressed);
  }) as ServerResponse['end'];
}

import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 now (another process may still take it before it is used). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

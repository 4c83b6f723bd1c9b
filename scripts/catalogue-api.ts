// Runs the catalogue API on 127.0.0.1 over HTTP. Usage: npm run catalogue:api -- [--port 8787] [--snapshot file.json]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { createCatalogueApi } from '../src/catalogue/api.ts';
import { embeddedSnapshot, parseSnapshot } from '../src/catalogue/snapshot.ts';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '8787' }, snapshot: { type: 'string' } },
});
const snapshot = values.snapshot
  ? parseSnapshot(JSON.parse(readFileSync(values.snapshot, 'utf8')), values.snapshot)
  : embeddedSnapshot();

const server = createServer(getRequestListener(createCatalogueApi(snapshot)));
server.listen(Number(values.port), '127.0.0.1', () => {
  const address = server.address();
  console.log(`Catalogue API at http://127.0.0.1:${typeof address === 'object' && address ? address.port : values.port}`);
});

// Runs the catalogue API on 127.0.0.1.
// Usage: npm run catalogue:api -- [--port 8787] [--snapshot file.json] [--base-path /api]
import { parseArgs } from 'node:util';
import { createCatalogueApi } from '../src/catalogue/api.ts';
import { embeddedSnapshot, readSnapshot } from '../src/catalogue/snapshot.ts';
import { serveApi } from './lib/api-server.ts';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '8787' }, snapshot: { type: 'string' }, 'base-path': { type: 'string', default: '' } },
});
const snapshot = values.snapshot ? readSnapshot(values.snapshot) : embeddedSnapshot();
const { url } = await serveApi(createCatalogueApi(snapshot, { basePath: values['base-path'] }), Number(values.port));
console.log(`Catalogue API at ${url}${values['base-path']}`);

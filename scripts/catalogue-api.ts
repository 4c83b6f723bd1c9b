// Runs the catalogue API on 127.0.0.1. Usage: npm run catalogue:api -- [--port 8787] [--snapshot file.json] [--base-path /api]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createCatalogueApi } from '../src/catalogue/api.ts';
import { embeddedSnapshot, parseSnapshot } from '../src/catalogue/snapshot.ts';
import { serveCatalogue } from './lib/catalogue-server.ts';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '8787' }, snapshot: { type: 'string' }, 'base-path': { type: 'string', default: '' } },
});
const snapshot = values.snapshot
  ? parseSnapshot(JSON.parse(readFileSync(values.snapshot, 'utf8')), values.snapshot)
  : embeddedSnapshot();
const { url } = await serveCatalogue(createCatalogueApi(snapshot, { basePath: values['base-path'] }), Number(values.port));
console.log(`Catalogue API at ${url}${values['base-path']}`);

// Serves the built site (dist/) on 127.0.0.1. Usage: npm run serve -- [--port 4321] [--root dist]
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { createStaticServer, listen } from './lib/static-server.ts';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '4321' }, root: { type: 'string', default: 'dist' } },
});
const url = await listen(createStaticServer(resolve(values.root)), Number(values.port));
console.log(`Serving ${values.root} at ${url}`);

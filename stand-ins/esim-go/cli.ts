// Runs the eSIM Go stand-in on 127.0.0.1 until stopped.
// Usage: node stand-ins/esim-go/cli.ts [--port 8791] [--callback-url URL] [--processing-ms 0] [--signature hex|base64];
// the API key from ESIM_GO_API_KEY, or the stand-in's own default (printed).
import { parseArgs } from 'node:util';
import { startEsimGoStandIn } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'callback-url': { type: 'string' },
    'processing-ms': { type: 'string', default: '0' },
    signature: { type: 'string', default: 'base64' },
  },
});
const apiKey = process.env['ESIM_GO_API_KEY'] || 'stand-in-esim-go-api-key';
const standIn = await startEsimGoStandIn({
  port: Number(values.port),
  apiKey,
  ...(values['callback-url'] ? { callbackUrl: values['callback-url'] } : {}),
  processingMs: Number(values['processing-ms']),
  signatureEncoding: values.signature === 'hex' ? 'hex' : 'base64',
});
console.log(`eSIM Go stand-in at ${standIn.url} with ${standIn.bundles.length} bundles. Point the adapter at it:`);
// A key from the environment stays out of the terminal.
const shownKey = process.env['ESIM_GO_API_KEY'] ? '<yours>' : apiKey;
console.log(`ESIM_GO_BASE_URL=${standIn.url} ESIM_GO_API_KEY=${shownKey}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void standIn.close().then(() => process.exit(0)));

// Runs the eSIM Access stand-in on 127.0.0.1 until stopped.
// Usage: npm run stand-in:esim-access -- [--port 8790] [--webhook-url URL] [--allocation-delay-ms 1000];
// credentials from ESIM_ACCESS_CODE and ESIM_ACCESS_SECRET, or the stand-in's own defaults (printed).
import { parseArgs } from 'node:util';
import { startEsimAccessStandIn } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'webhook-url': { type: 'string' },
    'allocation-delay-ms': { type: 'string', default: '1000' },
  },
});
const accessCode = process.env['ESIM_ACCESS_CODE'] || 'stand-in-access-code';
const secretKey = process.env['ESIM_ACCESS_SECRET'] || 'stand-in-secret-key';
const standIn = await startEsimAccessStandIn({
  port: Number(values.port),
  accessCode,
  secretKey,
  ...(values['webhook-url'] ? { webhookUrl: values['webhook-url'] } : {}),
  allocationDelayMs: Number(values['allocation-delay-ms']),
});
console.log(`eSIM Access stand-in at ${standIn.url} with ${standIn.packages.length} packages. Point the adapter at it:`);
// A secret from the environment stays out of the terminal.
const shownSecret = process.env['ESIM_ACCESS_SECRET'] ? '<yours>' : secretKey;
console.log(`ESIM_ACCESS_BASE_URL=${standIn.url} ESIM_ACCESS_CODE=${accessCode} ESIM_ACCESS_SECRET=${shownSecret}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void standIn.close().then(() => process.exit(0)));

// Runs the Stripe stand-in on 127.0.0.1 until stopped (npm start runs it with the shop API).
// Usage: npm run stand-in:stripe -- [--port 12111] [--webhook-url http://127.0.0.1:8788/api/webhooks/stripe]
// The webhook secret comes from STRIPE_WEBHOOK_SECRET, or the stand-in's own default (printed).
import { parseArgs } from 'node:util';
import { STAND_IN_SECRET_KEY, STAND_IN_WEBHOOK_SECRET, startStripeStandIn } from './server.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '12111' }, 'webhook-url': { type: 'string' } } });
const webhookSecret = process.env['STRIPE_WEBHOOK_SECRET'] || STAND_IN_WEBHOOK_SECRET;
const standIn = await startStripeStandIn({
  port: Number(values.port),
  webhookSecret,
  ...(values['webhook-url'] && { webhookUrl: values['webhook-url'] }),
});
console.log(`Stripe stand-in at ${standIn.url}; events at ${standIn.url}/_stand-in/events. Point the shop API at it:`);
console.log(
  `STRIPE_API_URL=${standIn.url} STRIPE_SECRET_KEY=${STAND_IN_SECRET_KEY} STRIPE_WEBHOOK_SECRET=${process.env['STRIPE_WEBHOOK_SECRET'] ? '<yours>' : webhookSecret}`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void standIn.close().then(() => process.exit(0)));

// Runs the push-service stand-in on 127.0.0.1 until stopped, printing one line per message it receives.
// Usage: npm run stand-in:push-service -- [--port 8090] [--key <the shop's VAPID_PUBLIC_KEY>]
import { parseArgs } from 'node:util';
import { startPushServiceStandIn } from './server.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '8090' }, key: { type: 'string' } } });
const service = await startPushServiceStandIn({
  port: Number(values.port),
  ...(values.key && { applicationServerKey: values.key }),
  onMessage: (m) =>
    console.log(`${m.receivedAt.toISOString()} /push/${m.id}: ${m.body.length} bytes, TTL ${m.ttl}, ${m.urgency}, answered ${m.status}`),
});
console.log(
  `Push-service stand-in at ${service.url}: subscription endpoints ${service.url}/push/<id>, control under ${service.url}/_stand-in/`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void service.close().then(() => process.exit(0)));

// Runs the SMTP stand-in on 127.0.0.1 until stopped, writing each message it receives as an .eml file.
// Usage: npm run stand-in:smtp -- [--port 2525] [--dir reports/mail]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_MAIL_DIR, startSmtpStandIn } from './server.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '2525' }, dir: { type: 'string' } } });
const dir = values.dir ? resolve(values.dir) : DEFAULT_MAIL_DIR;
const standIn = await startSmtpStandIn({
  port: Number(values.port),
  dir,
  onMessage: (message) => console.log(`${new Date().toISOString()} to ${message.to.join(', ')}: ${message.subject}\n  ${message.file}`),
});
console.log(`SMTP stand-in at ${standIn.url}, writing each message to ${dir}. Point the shop API at it:`);
console.log(`SMTP_URL=${standIn.url} MAIL_FROM="eSIM shop <orders@localhost>"`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void standIn.close().then(() => process.exit(0)));

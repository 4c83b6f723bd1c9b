// The Firebase Auth and Hosting emulators with the local configuration (scripts/lib/emulators.ts).
// Usage: node scripts/emulators.ts [--port 4321]; Playwright starts it once per test run.
import { parseArgs } from 'node:util';
import { startEmulators } from './lib/emulators.ts';

const { values } = parseArgs({ options: { port: { type: 'string', default: '4321' } } });
const emulators = startEmulators(Number(values.port));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => emulators.kill(signal));
emulators.on('close', (code) => process.exit(code ?? 0));

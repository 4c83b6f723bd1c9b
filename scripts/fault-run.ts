// The fault-injection run (issue 20; docs/fault-run-and-benchmark.md): buys, tops up and refunds
// through shop API processes that are killed at random, behind fault proxies in front of the
// Stripe, eSIM Access and eSIM Go stand-ins (eSIM Access down for a minute in the middle), on a
// real PostgreSQL server; then checks that no money was
// lost (the order audit and cross-checks against the stand-ins). Exit 0: every check holds;
// 1: something broke (listed); 2: the run could not be carried out.
// Usage: npm run faults -- [--orders 200] [--seed N] [--fault-rate 0.1] [--concurrency 8] [--outage-ms 60000] [--json report.json]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { newSeed } from './lib/fault-run/random.ts';
import { reportLines, runFaultRun } from './lib/fault-run/run.ts';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '200' },
    seed: { type: 'string' },
    'fault-rate': { type: 'string', default: '0.1' },
    concurrency: { type: 'string', default: '8' },
    'outage-ms': { type: 'string', default: '60000' },
    json: { type: 'string' },
  },
});
const whole = (name: string, text: string, min: number) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be a whole number, at least ${min}`);
    process.exit(2);
  }
  return n;
};
const orders = whole('orders', values.orders, 1);
const seed = values.seed === undefined ? newSeed() : whole('seed', values.seed, 0);
const faultRate = Number(values['fault-rate']);
if (!(faultRate >= 0 && faultRate <= 1)) {
  console.error('--fault-rate must be between 0 and 1');
  process.exit(2);
}
console.log(`fault run: seed ${seed}, ${orders} eSIM orders, fault rate ${faultRate}`);

try {
  const report = await runFaultRun({
    orders,
    seed,
    faultRate,
    concurrency: whole('concurrency', values.concurrency, 1),
    outageMs: whole('outage-ms', values['outage-ms'], 0),
  });
  console.log('');
  for (const line of reportLines(report)) console.log(line);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = report.failures.length === 0 ? 0 : 1;
} catch (error) {
  console.error(`the fault run could not be carried out (seed ${seed}):`, error);
  process.exitCode = 2;
}

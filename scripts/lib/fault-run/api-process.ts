// One shop API instance of the fault-injection run (scripts/fault-run.ts), in its own process so
// that the run can kill it with SIGKILL: the real startShopApi, configured from the environment
// (DATABASE_URL, STRIPE_API_URL and ESIM_ACCESS_BASE_URL pointing at the fault proxies, short
// STRIPE_TIMEOUT_MS and ESIM_ACCESS_TIMEOUT_MS), its routes under /api on a free port. Delivery
// timing comes from FAULT_RUN_API_OPTIONS (JSON). Prints one line `{"listening":"<url>"}` once it
// answers; SIGTERM stops it cleanly.
import { shopConfigFromEnv } from '../../../src/server/config.ts';
import { startShopApi } from '../../../src/server/start.ts';
import { serveApi } from '../api-server.ts';

interface ApiProcessOptions {
  delivery?: { retryDelaysMs?: number[]; allocationPollMs?: number; allocationLimitMs?: number; leaseMs?: number };
  reconcileEveryMs?: number;
  opsActionStaleMs?: number;
  checkoutExpiryRetry?: { delaysMs: number[]; claimMs: number };
  reconcileTiming?: {
    partnerOrphans?: { everyMs: number; settleMs: number };
    sweepLeaseMs?: number;
    autoTopUpUsage?: { everyMs: number; maxAgeMs: number };
  };
  autoTopUpTiming?: { leaseMs?: number; retryDelaysMs?: number[] };
}

const options = JSON.parse(process.env.FAULT_RUN_API_OPTIONS ?? '{}') as ApiProcessOptions;
const config = shopConfigFromEnv(process.env);
const { handler, stop } = await startShopApi(config, {
  basePath: '/api',
  ...(options.delivery && { delivery: options.delivery }),
  ...(options.reconcileEveryMs && { reconcileEveryMs: options.reconcileEveryMs }),
  ...(options.opsActionStaleMs && { opsActionStaleMs: options.opsActionStaleMs }),
  ...(options.checkoutExpiryRetry && { checkoutExpiryRetry: options.checkoutExpiryRetry }),
  ...(options.reconcileTiming && { reconcileTiming: options.reconcileTiming }),
  ...(options.autoTopUpTiming && { autoTopUpTiming: options.autoTopUpTiming }),
});
const api = await serveApi(handler, Number(process.env.PORT ?? 0));
process.stdout.write(`${JSON.stringify({ listening: api.url, pid: process.pid })}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await api.close();
    await stop();
    process.exit(0);
  })();
});

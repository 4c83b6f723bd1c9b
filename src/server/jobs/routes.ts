import { Hono, type Context } from 'hono';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import { bearerToken, fail, sameSecret } from '../http.ts';

/**
 * The scheduler's calls, mounted at /jobs (deploy/deploy.sh): POST /reconcile runs the reconcile
 * job once (RECONCILE_TOKEN), POST /audit the order audit that e-mails the provider what it finds
 * (AUDIT_TOKEN). Each needs its own bearer token.
 */
export function jobRoutes(deps: {
  reconcileToken: string | undefined;
  reconcile: () => Promise<number>;
  auditToken: string | undefined;
  runAudit: () => Promise<{ checked: number; findings: number; emailed: boolean }>;
}) {
  // Without a token configured (or the right one given) the route is not there.
  const allowed = (c: Context, expected: string | undefined) => {
    const token = bearerToken(c);
    return Boolean(expected && token && sameSecret(token, expected));
  };
  const notFound = (c: Context) => fail(c, 404, ERROR_CODES.notFound, 'Not found.');
  return new Hono()
    .post('/reconcile', async (c) => (allowed(c, deps.reconcileToken) ? c.json({ handled: await deps.reconcile() }) : notFound(c)))
    .post('/audit', async (c) => (allowed(c, deps.auditToken) ? c.json(await deps.runAudit()) : notFound(c)));
}

import { Hono } from 'hono';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import { bearerToken, fail, sameSecret } from '../http.ts';

/** The scheduler's calls, mounted at /jobs: POST /reconcile runs the reconcile job once. */
export function jobRoutes(deps: { reconcileToken: string | undefined; reconcile: () => Promise<number> }) {
  return new Hono().post('/reconcile', async (c) => {
    const token = bearerToken(c);
    // Without a token configured (or the right one given) the route is not there.
    if (!deps.reconcileToken || !token || !sameSecret(token, deps.reconcileToken)) return fail(c, 404, ERROR_CODES.notFound, 'Not found.');
    return c.json({ handled: await deps.reconcile() });
  });
}

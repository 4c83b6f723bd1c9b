import type { Context } from 'hono';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import { fail } from '../http.ts';
import type { NoTopUps } from './top-ups.ts';

/** The answer to a caller whose eSIM gets no top-ups now (GET /esims/{id}/top-ups and POST /orders alike). */
export function noTopUps(c: Context, why: NoTopUps): Response {
  switch (why) {
    case 'plan_cannot_top_up':
      return fail(c, 409, ERROR_CODES.cannotTopUp, 'This plan cannot be topped up.');
    case 'esim_cannot_top_up':
      return fail(c, 409, ERROR_CODES.cannotTopUp, 'This eSIM cannot be topped up now: it is not installed, or no longer valid.');
    case 'partner_unavailable':
      return fail(c, 503, ERROR_CODES.partnerUnavailable, 'The eSIM provider could not be reached. Please try again.');
  }
}

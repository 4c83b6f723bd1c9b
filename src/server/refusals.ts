import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_CODES } from '../contract/shop-api.ts';
import { fail } from './http.ts';
import { tooManyAttempts } from './limits.ts';

interface Refusal {
  status: ContentfulStatusCode;
  code: (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
  message: string;
}

/**
 * The answers to the refusals that several routes share, by the outcome their command answers: each
 * said once, so an eSIM unknown, a partner out of reach or sales paused read alike on every route.
 */
const REFUSALS = {
  no_such_esim: { status: 404, code: ERROR_CODES.notFound, message: 'No such eSIM.' },
  unknown_top_up: { status: 404, code: ERROR_CODES.unknownPlan, message: 'No top-up of this eSIM has this id.' },
  not_refundable: {
    status: 409,
    code: ERROR_CODES.notRefundable,
    message: 'This eSIM was installed or bought more than 30 days ago: it cannot be refunded.',
  },
  not_replaceable: {
    status: 409,
    code: ERROR_CODES.notReplaceable,
    message: 'Only an eSIM never downloaded, or deleted before it carried data, within 30 days of purchase is replaced.',
  },
  not_shareable: {
    status: 409,
    code: ERROR_CODES.notShareable,
    message: 'Only a delivered eSIM that has not ended can be given to a traveller.',
  },
  // Why an eSIM gets no top-ups now (orders/top-ups.ts): GET /esims/{id}/top-ups and POST /orders alike.
  plan_cannot_top_up: { status: 409, code: ERROR_CODES.cannotTopUp, message: 'This plan cannot be topped up.' },
  esim_cannot_top_up: {
    status: 409,
    code: ERROR_CODES.cannotTopUp,
    message: 'This eSIM cannot be topped up now: it is not installed, or no longer valid.',
  },
  partner_unavailable: {
    status: 503,
    code: ERROR_CODES.partnerUnavailable,
    message: 'The eSIM provider could not be reached. Please try again.',
  },
  sales_paused: {
    status: 503,
    code: ERROR_CODES.salesPaused,
    message: 'Orders are paused for a while: nothing was charged. Please try again later.',
  },
  payment_unavailable: {
    status: 502,
    code: ERROR_CODES.paymentUnavailable,
    message: 'The payment provider could not be reached. Please try again.',
  },
} as const satisfies Record<string, Refusal>;

/** A command's outcome that refuses the request in one of the shared ways, or the per-user limit's (429, Retry-After). */
export type Refused = { outcome: keyof typeof REFUSALS } | { outcome: 'too_many_attempts'; retryAfterSeconds: number };

/** The failure answer (http.ts's `fail`) to a refused outcome; a route answers its own outcomes itself. */
export function refuse(c: Context, refused: Refused): Response {
  if (refused.outcome === 'too_many_attempts') return tooManyAttempts(c, refused.retryAfterSeconds);
  const { status, code, message } = REFUSALS[refused.outcome];
  return fail(c, status, code, message);
}

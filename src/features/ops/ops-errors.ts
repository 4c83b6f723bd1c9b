import { fill } from '../../i18n/fill.ts';
import { OpsError } from './ops-client.ts';
import type { OpsMessages } from './ops-messages.ts';

type ErrorKey = Exclude<keyof OpsMessages['errors'], 'retry'>;

const BY_STATUS: Record<number, ErrorKey> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'bad_request',
  422: 'bad_request',
  429: 'too_many_requests',
};

/** Which translated message a failure gets: the API's code when we have words for it, else its status's. */
export function opsErrorKey(error: unknown): ErrorKey {
  if (!(error instanceof OpsError)) return 'server';
  if (Object.hasOwn(KNOWN_CODES, error.code)) return error.code as ErrorKey;
  return BY_STATUS[error.status] ?? 'server';
}

/** The codes with words of their own (compile-checked against the messages). */
const KNOWN_CODES: Record<ErrorKey, true> = {
  network: true,
  unauthorized: true,
  forbidden: true,
  recent_login_required: true,
  not_found: true,
  conflict: true,
  key_reused: true,
  address_needs_admin: true,
  bad_request: true,
  too_many_requests: true,
  partner_unavailable: true,
  server: true,
};

/** A failure in the page's language; a conflict says why in the API's words. */
export function opsErrorText(error: unknown, m: OpsMessages): string {
  const key = opsErrorKey(error);
  return fill(m.errors[key], { detail: (error instanceof OpsError && error.detail) || '' });
}

import type { AlertKind } from '../contract/shop-api.ts';

/** The kinds that have an e-mail, so an unsubscribe link (ALERT_KIND_CHANNELS: 'eSIM ready' is push only). */
export type EmailAlertKind = Exclude<AlertKind, 'esim_ready'>;
/** Checked at compile time against the contract's kinds (a value import would bring zod to the page). */
const EMAIL_KINDS: Record<EmailAlertKind, true> = {
  connected: true,
  not_connected: true,
  data_80: true,
  data_used_up: true,
  validity_1_day: true,
};

/** What POST /alerts/unsubscribe answered, as the unsubscribe page tells it. */
export type UnsubscribeOutcome = { status: 'done'; kind: EmailAlertKind } | { status: 'invalid' } | { status: 'failed' };

/**
 * One-click unsubscribe from an alert e-mail (issue 23): the token alone names the account and
 * the kind, so no sign-in and none of the signed-in client (src/shop-client/shop.ts), whose
 * Firebase code this page does not need. baseUrl: API_BASE_URL, without a trailing slash.
 */
export async function unsubscribeAlerts(baseUrl: string, token: string, fetchImpl: typeof fetch = fetch): Promise<UnsubscribeOutcome> {
  try {
    const response = await fetchImpl(`${baseUrl}/alerts/unsubscribe?token=${encodeURIComponent(token)}`, { method: 'POST' });
    const body: unknown = await response.json().catch(() => undefined);
    if (response.status === 400) return { status: 'invalid' };
    const kind = typeof body === 'object' && body !== null && 'kind' in body ? body.kind : undefined;
    if (response.ok && typeof kind === 'string' && Object.hasOwn(EMAIL_KINDS, kind))
      return { status: 'done', kind: kind as EmailAlertKind };
  } catch {
    // The network failed: the same as an answer we cannot use, which the page offers to retry.
  }
  return { status: 'failed' };
}

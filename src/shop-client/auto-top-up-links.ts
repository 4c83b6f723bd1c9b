import type { Price } from '../catalogue/schema.ts';
import type { Locale } from '../i18n/locales.ts';

/**
 * The automatic top-ups' e-mail links (issue 49): the signed token alone says what the link may do
 * (pay one refused top-up, or turn an eSIM's off), so no sign-in and none of the signed-in client
 * (src/shop-client/shop.ts). Answers checked by hand: zod is not on the page. baseUrl: API_BASE_URL.
 */
export type AutoTopUpLink =
  | {
      purpose: 'pay';
      state: 'payable' | 'paid' | 'ended';
      destination: { name: string; flag: string };
      plan: { metadata: { dataAmount: { value: number; unit: 'MB' | 'GB' } }; validity: number; validityUnit: 'day' | 'week' | 'month' };
      total: Price;
    }
  | { purpose: 'off'; destination: { name: string; flag: string }; enabled: boolean };

export type LinkOutcome<T> = { status: 'ok'; value: T } | { status: 'invalid' } | { status: 'failed' };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

async function ask<T>(
  url: string,
  init: RequestInit,
  check: (body: unknown) => body is T,
  fetchImpl: typeof fetch,
): Promise<LinkOutcome<T>> {
  try {
    const response = await fetchImpl(url, init);
    const body: unknown = await response.json().catch(() => undefined);
    if (response.status === 400) return { status: 'invalid' };
    if (response.ok && check(body)) return { status: 'ok', value: body };
  } catch {
    // The network failed: the page offers to try again.
  }
  return { status: 'failed' };
}

const isLink = (body: unknown): body is AutoTopUpLink =>
  isObject(body) &&
  isObject(body.destination) &&
  typeof body.destination.name === 'string' &&
  ((body.purpose === 'off' && typeof body.enabled === 'boolean') ||
    (body.purpose === 'pay' &&
      ['payable', 'paid', 'ended'].includes(String(body.state)) &&
      isObject(body.plan) &&
      isObject(body.total) &&
      typeof body.total.amountMinor === 'number'));

const query = (token: string, lang: Locale) => `token=${encodeURIComponent(token)}&lang=${lang}`;

export const readAutoTopUpLink = (baseUrl: string, token: string, lang: Locale, fetchImpl: typeof fetch = fetch) =>
  ask(`${baseUrl}/auto-top-ups/link?${query(token, lang)}`, {}, isLink, fetchImpl);

/** Stripe's page for the refused top-up: the same order and price, paid now. */
export const payAutoTopUp = (baseUrl: string, token: string, lang: Locale, fetchImpl: typeof fetch = fetch) =>
  ask(
    `${baseUrl}/auto-top-ups/link/pay?${query(token, lang)}`,
    { method: 'POST' },
    (body): body is { url: string } => isObject(body) && typeof body.url === 'string' && /^https?:\/\//.test(body.url),
    fetchImpl,
  );

export const turnOffAutoTopUpsByLink = (baseUrl: string, token: string, fetchImpl: typeof fetch = fetch) =>
  ask(
    `${baseUrl}/auto-top-ups/link/off?token=${encodeURIComponent(token)}`,
    { method: 'POST' },
    (body): body is { enabled: false } => isObject(body) && body.enabled === false,
    fetchImpl,
  );

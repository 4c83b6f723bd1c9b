import type { SupportCreated, SupportForm, SupportList, SupportRequest, SupportView } from '../contract/support-api.ts';

/**
 * The support form's client of the shop API (src/contract/support-api.ts): a visitor's calls carry
 * no token, a signed-in buyer's their Firebase ID token. Failures become one SupportError kind.
 */
export type SupportErrorKind = 'network' | 'server' | 'badInput' | 'spam' | 'tooManyRequests' | 'notFound' | 'unauthorized';

export class SupportError extends Error {
  constructor(readonly kind: SupportErrorKind) {
    super(`support API: ${kind}`);
    this.name = 'SupportError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function kindOf(status: number, code: unknown): SupportErrorKind {
  if (status === 400 && code === 'spam_suspected') return 'spam';
  if (status === 400) return 'badInput';
  if (status === 401) return 'unauthorized';
  if (status === 404) return 'notFound';
  if (status === 429) return 'tooManyRequests';
  return 'server';
}

export function createSupportClient(baseUrl: string, fetchImpl: typeof fetch = (...args) => fetch(...args)) {
  async function call<R>(path: string, check: (body: unknown) => body is R, init: { token?: string | undefined; body?: unknown } = {}) {
    let response: Response;
    try {
      const headers: Record<string, string> = {};
      if (init.token) headers.Authorization = `Bearer ${init.token}`;
      if (init.body !== undefined) headers['Content-Type'] = 'application/json';
      response = await fetchImpl(`${baseUrl}${path}`, {
        method: init.body === undefined ? 'GET' : 'POST',
        headers,
        ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
      });
    } catch {
      throw new SupportError('network');
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok && check(body)) return body;
    if (response.ok) throw new SupportError('server');
    throw new SupportError(kindOf(response.status, isObject(body) && isObject(body.error) ? body.error.code : undefined));
  }
  const isView = (v: unknown): v is SupportView => isObject(v) && typeof v.id === 'string' && Array.isArray(v.messages);
  return {
    form: () => call('/support/form', (b): b is SupportForm => isObject(b) && typeof b.formToken === 'string'),
    send: (request: SupportRequest, token?: string) =>
      call('/support', (b): b is SupportCreated => isObject(b) && typeof b.reference === 'string', { token, body: request }),
    list: (token: string) =>
      call('/support', (b): b is SupportList => isObject(b) && Array.isArray(b.requests) && b.requests.every(isView), { token }),
    followUp: (id: string, message: string, token: string) =>
      call(`/support/${encodeURIComponent(id)}/messages`, isView, { token, body: { message } }),
  };
}

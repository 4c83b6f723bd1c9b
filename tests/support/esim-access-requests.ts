import { createHmac } from 'node:crypto';

/** An eSIM Access account: what signs a request. */
export interface EsimAccessAccount {
  accessCode: string;
  secretKey: string;
}

/**
 * The headers of a signed eSIM Access request as the partner documents them: access code, request
 * id, timestamp and the HMAC-SHA256 of the three with the body. Made by hand, not by the adapter,
 * so a test of the stand-in does not lean on the code it checks against.
 */
export function esimAccessHeaders(
  account: EsimAccessAccount,
  body: string,
  { requestId, timestamp = String(Date.now()) }: { requestId: string; timestamp?: string | undefined },
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'RT-AccessCode': account.accessCode,
    'RT-RequestID': requestId,
    'RT-Timestamp': timestamp,
    'RT-Signature': createHmac('sha256', account.secretKey)
      .update(timestamp + requestId + account.accessCode + body)
      .digest('hex'),
  };
}

/** One signed call (e.g. 'esim/order') to the eSIM Access API at `baseUrl`, and its JSON answer. */
export async function callEsimAccess<T>(
  baseUrl: string,
  account: EsimAccessAccount,
  call: string,
  body: string,
  requestId: string,
): Promise<T> {
  const headers = esimAccessHeaders(account, body, { requestId });
  const response = await fetch(`${baseUrl}/api/v1/open/${call}`, { method: 'POST', headers, body });
  return (await response.json()) as T;
}

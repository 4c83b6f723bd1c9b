import { OPS_LIST_LIMIT } from '../../config/constants.ts';
import type { Queryable } from '../db/db.types.ts';
import type { SupportRequestRow } from '../support/store.ts';
import { orderNumberIn } from './order-search.ts';

export type InboxRow = SupportRequestRow & { number: number | null; order_created_at: Date | null };

/**
 * What a support search names (`r` a request, `o` its order): its reference (SR-1A2B3C4D, the first
 * 8 hex digits of its id, with or without SR-), an order number, an e-mail, else an account.
 */
export function supportSearchKey(q: string): { sql: string; value: unknown } {
  const reference = /^sr-?([0-9a-f]{8})$/i.exec(q);
  if (reference) return { sql: 'r.id::text LIKE $1', value: `${reference[1]!.toLowerCase()}%` };
  const number = orderNumberIn(q);
  if (number !== undefined) return { sql: 'o.number = $1', value: number };
  if (/^[0-9a-f]{8}$/i.test(q)) return { sql: 'r.id::text LIKE $1', value: `${q.toLowerCase()}%` };
  if (q.includes('@')) return { sql: 'lower(r.email) = lower($1)', value: q };
  return { sql: 'r.uid = $1', value: q };
}

/**
 * The support inbox (issue 32 item 4): the open requests, the longest waiting first, or the closed
 * ones, the latest closed first; a search finds requests in either state, the latest first. At
 * most OPS_LIST_LIMIT, and whether more match.
 */
export async function supportInbox(
  db: Queryable,
  { state = 'open', q }: { state?: 'open' | 'closed' | undefined; q?: string | undefined },
): Promise<{ rows: InboxRow[]; more: boolean }> {
  const key = q ? supportSearchKey(q) : undefined;
  const rows = await db.query<InboxRow>(
    `SELECT r.*, o.number, o.created_at AS order_created_at FROM support_requests r LEFT JOIN orders o ON o.id = r.order_id
     WHERE ${key ? key.sql : 'r.state = $1'}
     ORDER BY ${key ? 'r.last_buyer_message_at DESC' : state === 'open' ? 'r.last_buyer_message_at ASC' : 'r.closed_at DESC'}
     LIMIT ${OPS_LIST_LIMIT + 1}`,
    [key ? key.value : state],
  );
  return { rows: rows.slice(0, OPS_LIST_LIMIT), more: rows.length > OPS_LIST_LIMIT };
}

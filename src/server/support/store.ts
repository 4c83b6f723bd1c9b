import { randomUUID } from 'node:crypto';
import { supportReference, type SupportView } from '../../contract/support-api.ts';
import type { Db, Queryable } from '../db/db.types.ts';

/** A support request as stored (migration 0023). */
export interface SupportRequestRow {
  id: string;
  uid: string | null;
  email: string;
  lang: string;
  order_id: string | null;
  order_number: string | null;
  esim_tran_no: string | null;
  diagnosis: Record<string, unknown>;
  state: 'open' | 'closed';
  created_at: Date;
  last_buyer_message_at: Date;
  first_reply_at: Date | null;
  closed_at: Date | null;
}

export interface SupportMessageRow {
  id: number;
  request_id: string;
  author: 'buyer' | 'operator';
  operator_uid: string | null;
  body: string;
  created_at: Date;
}

export interface NewSupportRequest {
  uid: string | null;
  email: string;
  lang: string;
  orderId: string | null;
  orderNumber: string | null;
  esimTranNo: string | null;
  diagnosis: Record<string, unknown>;
  message: string;
}

/**
 * Records a form token's nonce as used (migration 0033): true the first time, false for a token
 * already used. Clears the tokens whose form was shown over a day ago, which are refused anyway.
 */
export async function spendFormToken(db: Db, token: { nonce: string; issuedAt: number }): Promise<boolean> {
  const rows = await db.query(
    `WITH cleared AS (DELETE FROM support_form_tokens_used WHERE issued_at < now() - interval '25 hours')
     INSERT INTO support_form_tokens_used (nonce, issued_at) VALUES ($1, to_timestamp($2::double precision / 1000))
     ON CONFLICT (nonce) DO NOTHING RETURNING nonce`,
    [token.nonce, token.issuedAt],
  );
  return rows.length === 1;
}

/** Opens a request with its first message, in one transaction. */
export async function createSupportRequest(db: Db, input: NewSupportRequest): Promise<SupportRequestRow> {
  const id = randomUUID();
  return db.transaction(async (tx) => {
    const [row] = await tx.query<SupportRequestRow>(
      `INSERT INTO support_requests (id, uid, email, lang, order_id, order_number, esim_tran_no, diagnosis)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) RETURNING *`,
      [id, input.uid, input.email, input.lang, input.orderId, input.orderNumber, input.esimTranNo, JSON.stringify(input.diagnosis)],
    );
    await tx.query(`INSERT INTO support_messages (request_id, author, body) VALUES ($1, 'buyer', $2)`, [id, input.message]);
    return row!;
  });
}

/** A buyer's message on their own request: it is open again. Undefined when it is not theirs. */
export async function addBuyerMessage(
  db: Db,
  uid: string,
  id: string,
  body: string,
): Promise<{ request: SupportRequestRow; added: boolean } | undefined> {
  return db.transaction(async (tx) => {
    // The request's row locked first: two sends of one message (a double click) are looked at one after the other.
    const [row] = await tx.query<SupportRequestRow>(
      `UPDATE support_requests SET state = 'open', closed_at = NULL, last_buyer_message_at = now()
       WHERE id = $1 AND uid = $2 RETURNING *`,
      [id, uid],
    );
    if (!row) return undefined;
    // The same words again within a minute, nothing written between: the same message, kept once.
    const [last] = await tx.query<{ author: string; body: string; recent: boolean }>(
      `SELECT author, body, created_at > now() - interval '1 minute' AS recent FROM support_messages
       WHERE request_id = $1 ORDER BY id DESC LIMIT 1`,
      [id],
    );
    if (last?.author === 'buyer' && last.body === body && last.recent) return { request: row, added: false };
    await tx.query(`INSERT INTO support_messages (request_id, author, body) VALUES ($1, 'buyer', $2)`, [id, body]);
    return { request: row, added: true };
  });
}

/** An operator's reply: the first one is the request's first reply time. */
export async function addOperatorReply(
  tx: Queryable,
  id: string,
  reply: { operatorUid: string; actionId: number; body: string },
): Promise<SupportRequestRow | undefined> {
  const [row] = await tx.query<SupportRequestRow>(
    `UPDATE support_requests SET first_reply_at = coalesce(first_reply_at, now()) WHERE id = $1 RETURNING *`,
    [id],
  );
  if (!row) return undefined;
  await tx.query(
    `INSERT INTO support_messages (request_id, author, operator_uid, operator_action_id, body) VALUES ($1, 'operator', $2, $3, $4)`,
    [id, reply.operatorUid, reply.actionId, reply.body],
  );
  return row;
}

/** Closes an open request; undefined when there is none, 'already' when it was closed. */
export async function closeSupportRequest(db: Queryable, id: string): Promise<'closed' | 'already' | undefined> {
  const [row] = await db.query<{ was: string }>(
    `UPDATE support_requests r SET state = 'closed', closed_at = CASE WHEN r.state = 'open' THEN now() ELSE r.closed_at END
     FROM (SELECT id, state AS was FROM support_requests WHERE id = $1 FOR UPDATE) old
     WHERE r.id = old.id RETURNING old.was`,
    [id],
  );
  if (!row) return undefined;
  return row.was === 'open' ? 'closed' : 'already';
}

export async function supportRequest(db: Queryable, id: string): Promise<SupportRequestRow | undefined> {
  return (await db.query<SupportRequestRow>('SELECT * FROM support_requests WHERE id = $1', [id]))[0];
}

export async function messagesOf(db: Queryable, ids: readonly string[]): Promise<Map<string, SupportMessageRow[]>> {
  const byRequest = new Map<string, SupportMessageRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byRequest;
  const rows = await db.query<SupportMessageRow>(
    `SELECT id, request_id, author, operator_uid, body, created_at FROM support_messages
     WHERE request_id = ANY($1::uuid[]) ORDER BY id`,
    [ids],
  );
  for (const row of rows) byRequest.get(row.request_id)?.push(row);
  return byRequest;
}

/** The buyer's own requests, newest first, with their messages (who answered is never told). */
export async function requestsOf(db: Queryable, uid: string): Promise<SupportView[]> {
  const rows = await db.query<SupportRequestRow & { own_number: string | null }>(
    `SELECT r.*, CASE WHEN o.id IS NOT NULL THEN 'ES-' || extract(year FROM o.created_at AT TIME ZONE 'UTC')::int || '-' || lpad(o.number::text, 6, '0') END AS own_number
     FROM support_requests r LEFT JOIN orders o ON o.id = r.order_id AND o.uid = r.uid
     WHERE r.uid = $1 ORDER BY r.created_at DESC LIMIT 50`,
    [uid],
  );
  const messages = await messagesOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => ({
    id: row.id,
    reference: supportReference(row.id),
    state: row.state,
    createdAt: row.created_at.toISOString(),
    orderNumber: row.own_number,
    messages: (messages.get(row.id) ?? []).map((m) => ({ author: m.author, body: m.body, createdAt: m.created_at.toISOString() })),
  }));
}

/** The dashboard's counts: requests open now, and the median time to a first reply of those opened in the last 30 days. */
export async function supportCounts(
  db: Queryable,
  now: Date = new Date(),
): Promise<{ open: number; medianFirstReplyMinutes: number | null }> {
  const [row] = await db.query<{ open: number; median_s: number | string | null }>(
    `SELECT (SELECT count(*) FROM support_requests WHERE state = 'open') AS open,
            (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_reply_at - created_at))
             FROM support_requests WHERE first_reply_at IS NOT NULL AND created_at >= $1::timestamptz - interval '30 days') AS median_s`,
    [now],
  );
  return {
    open: Number(row?.open ?? 0),
    medianFirstReplyMinutes: row?.median_s == null ? null : Math.round(Number(row.median_s) / 6) / 10,
  };
}

/** An account deleted: its support requests and their messages go with it (they hold the person's words and address). */
export async function forgetSupportRequests(tx: Queryable, uid: string): Promise<void> {
  await tx.query('DELETE FROM support_requests WHERE uid = $1', [uid]);
}

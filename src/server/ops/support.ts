import { Hono } from 'hono';
import { zValidator } from '@hono/zod-validator';
import { OpsSupportClose, OpsSupportQuery, OpsSupportReply, type OpsSupportList } from '../../contract/ops-api.ts';
import { ERROR_CODES } from '../../contract/shop-api.ts';
import { supportReference } from '../../contract/support-api.ts';
import type { Db } from '../db/db.types.ts';
import { fail } from '../http.ts';
import { orderNumber } from '../orders/store.ts';
import { supportReplyEmail } from '../support/emails.ts';
import { queueSupportEmail, sendQueued } from '../support/outbox.ts';
import type { SupportDeps } from '../support/routes.ts';
import { addOperatorReply, closeSupportRequest, messagesOf, supportRequest } from '../support/store.ts';
import { jsonBody } from '../validation.ts';
import type { ActionRecords } from './action-records.types.ts';
import type { OpsEnv } from './ops-auth.ts';
import { supportInbox } from './support-search.ts';

const UUID = '[0-9a-fA-F-]{36}';

/**
 * The back office's support inbox (issue 32 item 4), mounted at /ops/support: the requests (open by
 * default, the longest waiting first; a search: support-search.ts) with their messages and order, a reply (recorded as an operator
 * action, e-mailed to the buyer in their language, shown on their profile) and closing one.
 */
export function opsSupportRoutes(deps: { db: Db; actionRecords: ActionRecords; support: SupportDeps }) {
  const { db, actionRecords, support } = deps;
  const noSuch = (c: Parameters<typeof fail>[0]) => fail(c, 404, ERROR_CODES.notFound, 'There is no such support request.');
  return new Hono<OpsEnv>()
    .get(
      '/',
      zValidator('query', OpsSupportQuery, (result, c) =>
        result.success ? undefined : fail(c, 400, ERROR_CODES.badRequest, 'state is open or closed; q is at most 200 characters.'),
      ),
      async (c) => {
        const { rows, more } = await supportInbox(db, c.req.valid('query'));
        const messages = await messagesOf(
          db,
          rows.map((r) => r.id),
        );
        const body: OpsSupportList = {
          requests: rows.map((r) => ({
            id: r.id,
            reference: supportReference(r.id),
            state: r.state,
            email: r.email,
            lang: r.lang,
            visitor: r.uid === null,
            uid: r.uid,
            orderId: r.order_id,
            orderNumber:
              r.number !== null && r.order_created_at !== null
                ? orderNumber({ number: r.number, created_at: r.order_created_at })
                : r.order_number,
            givenOrderNumber: r.order_number,
            diagnosis: r.diagnosis,
            createdAt: r.created_at.toISOString(),
            firstReplyAt: r.first_reply_at?.toISOString() ?? null,
            closedAt: r.closed_at?.toISOString() ?? null,
            messages: (messages.get(r.id) ?? []).map((m) => ({
              author: m.author,
              operatorUid: m.operator_uid,
              body: m.body,
              createdAt: m.created_at.toISOString(),
            })),
          })),
          more,
        };
        return c.json(body);
      },
    )
    .post(`/:id{${UUID}}/reply`, ...jsonBody(OpsSupportReply), async (c) => {
      const id = c.req.param('id').toLowerCase();
      const { text, idempotencyKey } = c.req.valid('json');
      const request = await supportRequest(db, id);
      if (!request) return noSuch(c);
      const operator = c.var.operator;
      return c.json(
        await actionRecords.record(
          {
            operator,
            action: 'support_reply',
            idempotencyKey,
            reason: `Reply to ${supportReference(id)}`,
            orderId: request.order_id ?? undefined,
            accountUid: request.uid ?? undefined,
            details: { supportRequestId: id, text },
          },
          async (actionId) => {
            // The reply and its e-mail are written together; the e-mail is sent after, and again by the job if the relay refuses it.
            const replied = await db.transaction(async (tx) => {
              const row = await addOperatorReply(tx, id, { operatorUid: operator.uid, actionId, body: text });
              if (!row) return undefined;
              const email = supportReplyEmail({ request: row, reply: text, siteName: support.siteName, siteUrl: support.siteUrl });
              return queueSupportEmail(tx, { requestId: id, what: 'reply', to: row.email, email });
            });
            if (!replied) return { outcome: 'refused', detail: 'There is no such support request.' };
            await sendQueued(db, support.mailer, replied);
            return { outcome: 'done', detail: null };
          },
        ),
      );
    })
    .post(`/:id{${UUID}}/close`, ...jsonBody(OpsSupportClose), async (c) => {
      const id = c.req.param('id').toLowerCase();
      const request = await supportRequest(db, id);
      if (!request) return noSuch(c);
      const { idempotencyKey } = c.req.valid('json');
      return c.json(
        await actionRecords.record(
          {
            operator: c.var.operator,
            action: 'support_close',
            idempotencyKey,
            reason: `Close ${supportReference(id)}`,
            orderId: request.order_id ?? undefined,
            accountUid: request.uid ?? undefined,
            details: { supportRequestId: id },
          },
          async () => {
            const closed = await closeSupportRequest(db, id);
            return closed === 'closed' ? { outcome: 'done', detail: null } : { outcome: 'already', detail: 'Closed before.' };
          },
        ),
      );
    });
}

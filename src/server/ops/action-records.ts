import { OPS_ACTION_STALE_MS } from '../../config/constants.ts';
import type { OpsActionResult } from '../../contract/ops-api.ts';
import type { Db, Queryable } from '../db/db.ts';
import type { Operator } from './ops-auth.ts';

export type OpsAction =
  | 'note'
  | 'resend_email'
  | 'retry_delivery'
  | 'refund'
  | 'esim_suspend'
  | 'esim_unsuspend'
  | 'esim_revoke'
  | 'esim_read'
  | 'approve'
  | 'reject'
  | 'block'
  | 'unblock'
  | 'delete_account'
  | 'sales_pause'
  | 'sales_resume'
  | 'support_reply'
  | 'support_close';

export interface ActionRequest {
  operator: Pick<Operator, 'uid' | 'email'>;
  action: OpsAction;
  idempotencyKey: string;
  reason: string;
  orderId?: string | undefined;
  accountUid?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

/** What the action did; `details` are merged into the row's. */
export type ActionOutcome = Omit<OpsActionResult, 'action'> & { details?: Record<string, unknown> };

export interface ActionRow {
  id: number;
  action: OpsAction;
  outcome: 'started' | OpsActionResult['outcome'] | 'failed';
  outcome_detail: string | null;
}

/** Runs an operator's action once per click, recorded (see createActionRecords). */
export interface ActionRecords {
  record(request: ActionRequest, act: (actionId: number) => Promise<ActionOutcome>): Promise<OpsActionResult>;
}

/**
 * The record of operator actions (migration 0018): the row is written before the action runs and
 * settled with its outcome, so the record exists even when the action's answer is lost. The same
 * idempotency key (one per click) finds the first row: a double click does it once. An action left
 * 'started' by an instance that died may run again after `staleAfterMs` (OPS_ACTION_STALE_MS).
 */
export function createActionRecords(db: Db, staleAfterMs = OPS_ACTION_STALE_MS): ActionRecords {
  return { record: (request, act) => recordAction(db, request, act, staleAfterMs) };
}

async function recordAction(
  db: Db,
  request: ActionRequest,
  act: (actionId: number) => Promise<ActionOutcome>,
  staleAfterMs: number,
): Promise<OpsActionResult> {
  const inserted = await db.query<ActionRow>(
    `INSERT INTO operator_actions (idempotency_key, operator_uid, operator_email, action, order_id, account_uid, reason, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING id, action, outcome, outcome_detail`,
    [
      request.idempotencyKey,
      request.operator.uid,
      request.operator.email,
      request.action,
      request.orderId ?? null,
      request.accountUid ?? null,
      request.reason,
      JSON.stringify(request.details ?? {}),
    ],
  );
  // The same click again finds the first row. A try that failed (threw), or one left 'started' by
  // an instance that died (OPS_ACTION_STALE_MS), may run again: every action reads the state at
  // Stripe or the partner before it writes, and the refund command's key is the click's, so a
  // second run does nothing twice.
  const row =
    inserted[0] ??
    (
      await db.query<ActionRow>(
        `UPDATE operator_actions SET outcome = 'started', outcome_detail = NULL, started_at = now()
         WHERE idempotency_key = $1 AND action = $2
           AND (outcome = 'failed' OR (outcome = 'started' AND started_at < now() - $3 * interval '1 millisecond'))
         RETURNING id, action, outcome, outcome_detail`,
        [request.idempotencyKey, request.action, staleAfterMs],
      )
    )[0];
  if (!row) {
    const [first] = await db.query<ActionRow>(
      'SELECT id, action, outcome, outcome_detail FROM operator_actions WHERE idempotency_key = $1',
      [request.idempotencyKey],
    );
    if (!first || first.action !== request.action)
      return { action: request.action, outcome: 'refused', detail: 'This key was used for another action.' };
    if (first.outcome === 'started' || first.outcome === 'failed')
      return { action: first.action, outcome: 'pending', detail: 'Under way.' };
    return { action: first.action, outcome: first.outcome === 'done' ? 'already' : first.outcome, detail: first.outcome_detail };
  }
  let result: ActionOutcome;
  try {
    result = await act(row.id);
  } catch (error) {
    await settle(db, row.id, 'failed', error instanceof Error ? error.message : String(error), {});
    throw error;
  }
  await settle(db, row.id, result.outcome, result.detail, result.details ?? {});
  return { action: request.action, outcome: result.outcome, detail: result.detail };
}

async function settle(db: Queryable, id: number, outcome: ActionRow['outcome'], detail: string | null, details: Record<string, unknown>) {
  await db.query(
    `UPDATE operator_actions SET outcome = $2, outcome_detail = $3, details = details || $4::jsonb, settled_at = now() WHERE id = $1`,
    [id, outcome, detail, JSON.stringify(details)],
  );
}

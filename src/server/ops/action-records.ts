import { OPS_ACTION_STALE_MS } from '../../config/constants.ts';
import type { OpsActionResult } from '../../contract/ops-api.ts';
import type { Db, Queryable } from '../db/db.types.ts';
import type { ActionRequest, ActionOutcome, ActionRow, ActionRecords } from './action-records.types.ts';

/**
 * The key was used for another request: another operator, action, order, account or body (issue 46
 * item 4). Nothing was run; the routes answer 409 OPS_ERROR_CODES.keyReused.
 */
export class ActionKeyReused extends Error {
  // A field of its own, not a parameter property: the API runs under Node's type stripping, which refuses those.
  readonly idempotencyKey: string;
  constructor(idempotencyKey: string) {
    super('This idempotency key was used for another request (operator, action, order or body): nothing was done.');
    this.name = 'ActionKeyReused';
    this.idempotencyKey = idempotencyKey;
  }
}

/**
 * The record of operator actions (migration 0018): the row is written before the action runs and
 * settled with its outcome, so the record exists even when the action's answer is lost. The same
 * idempotency key (one per click) finds the first row: a double click does it once. An action left
 * 'started' by an instance that died may run again after `staleAfterMs` (OPS_ACTION_STALE_MS).
 * Only the very request the row was written for (migration 0034: the same operator, action, order,
 * account and body) finds it: any other under that key throws ActionKeyReused and runs nothing.
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
  // What was asked, as one value (migration 0034): only this very request finds the row again.
  const asked = `jsonb_build_object('operator', $2::text, 'action', $3::text, 'order', $4::uuid, 'account', $5::text, 'reason', $6::text, 'details', $7::jsonb)`;
  const params = [
    request.idempotencyKey,
    request.operator.uid,
    request.action,
    request.orderId ?? null,
    request.accountUid ?? null,
    request.reason,
    JSON.stringify(request.details ?? {}),
  ];
  const inserted = await db.query<ActionRow>(
    `INSERT INTO operator_actions (idempotency_key, operator_uid, operator_email, action, order_id, account_uid, reason, details, request)
     VALUES ($1, $2, $8, $3, $4, $5, $6, $7, ${asked})
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING id, action, outcome, outcome_detail`,
    [...params, request.operator.email],
  );
  // The same click again finds the first row. A try that failed (threw), or one left 'started' by
  // an instance that died (OPS_ACTION_STALE_MS), may run again: every action reads the state at
  // Stripe or the partner before it writes, and the refund command's key is the click's, so a
  // second run does nothing twice. Only the same request runs again: another operator's, another
  // order's or another body's under this key is refused below and runs nothing.
  const row =
    inserted[0] ??
    (
      await db.query<ActionRow>(
        `UPDATE operator_actions SET outcome = 'started', outcome_detail = NULL, started_at = now()
         WHERE idempotency_key = $1 AND request = ${asked}
           AND (outcome = 'failed' OR (outcome = 'started' AND started_at < now() - $8 * interval '1 millisecond'))
         RETURNING id, action, outcome, outcome_detail`,
        [...params, staleAfterMs],
      )
    )[0];
  if (!row) {
    const [first] = await db.query<ActionRow & { same: boolean | null }>(
      `SELECT id, action, outcome, outcome_detail, request = ${asked} AS same FROM operator_actions WHERE idempotency_key = $1`,
      params,
    );
    if (!first?.same) throw new ActionKeyReused(request.idempotencyKey);
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

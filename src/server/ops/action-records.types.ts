import type { OpsActionResult } from '../../contract/ops-api.ts';
import type { Operator } from './ops-auth.ts';

/** The back office's actions as records (action-records.ts): each recorded before it runs, with who asked and why. */
export type OpsAction =
  | 'note'
  | 'resend_email'
  | 'retry_delivery'
  | 'deliver_elsewhere'
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
  | 'support_close'
  /** An eSIM's automatic top-ups turned off (issue 49). */
  | 'auto_top_up_off';

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

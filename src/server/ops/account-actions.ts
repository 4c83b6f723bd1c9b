import type { OpsActionResult, OpsReason } from '../../contract/ops-api.ts';
import { deleteBuyerAccount, type AccountDeletionDeps } from '../account/delete-account.ts';
import type { ActionRecords } from './action-records.types.ts';
import type { AccountActions } from './actions.types.ts';
import type { Operator } from './ops-auth.ts';

/**
 * The back office's actions on an account (issue 30 item 6), each recorded with the operator and
 * their reason. Blocking disables the Firebase account and revokes its sessions (the buyer's next
 * write answers 403 account_blocked: buyer-auth.ts) and cancels its open orders, their payment
 * pages expired at Stripe; its eSIMs keep working unless the operator suspends them. Deletion is
 * the buyer's own deletion path (account/delete-account.ts): the books are kept.
 */
export function createAccountActions(deps: AccountDeletionDeps & { actionRecords: ActionRecords }): AccountActions {
  const { accounts } = deps;
  const record = (
    operator: Operator,
    action: 'block' | 'unblock' | 'delete_account',
    uid: string,
    body: OpsReason,
    act: () => Promise<OpsActionResult['outcome']>,
  ) =>
    deps.actionRecords.record({ operator, action, accountUid: uid, idempotencyKey: body.idempotencyKey, reason: body.reason }, async () => {
      const account = await accounts.find({ uid });
      if (!account) return { outcome: 'refused', detail: 'There is no such account.' };
      if (account.role && action !== 'unblock')
        return { outcome: 'refused', detail: 'A staff account: remove its role first (npm run ops:grant).' };
      return { outcome: await act(), detail: null };
    });

  return {
    block: (operator: Operator, uid: string, body: OpsReason) =>
      record(operator, 'block', uid, body, async () => {
        await accounts.setDisabled(uid, true);
        await deps.checkouts.close(await deps.store.cancelOpenOrdersOf(uid, 'account_blocked'));
        return 'done';
      }),
    unblock: (operator: Operator, uid: string, body: OpsReason) =>
      record(operator, 'unblock', uid, body, async () => {
        await accounts.setDisabled(uid, false);
        return 'done';
      }),
    delete: (operator: Operator, uid: string, body: OpsReason) =>
      record(operator, 'delete_account', uid, body, async () => {
        await deleteBuyerAccount(deps, uid);
        return 'done';
      }),
  };
}

import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import { ActionKeyReused, createActionRecords } from './action-records.ts';
import type { ActionOutcome, ActionRecords } from './action-records.types.ts';

/**
 * The record of operator actions (issue 30): written before the action runs, settled with its
 * outcome, once per click (idempotency key); a try that threw, or one cut off by a dying instance,
 * runs again under the same key, and one under way is never run twice at once.
 */
describe.each(databaseDrivers())('operator actions on $name', ({ open }) => {
  let db: Db;
  let records: ActionRecords;
  const operator = { uid: 'op-1', email: 'op@example.com' };
  const request = (idempotencyKey: string) => ({ operator, action: 'note' as const, idempotencyKey, reason: 'why' });
  const done: ActionOutcome = { outcome: 'done', detail: null };

  withDatabase(
    open,
    (opened) => {
      db = opened;
      records = createActionRecords(opened);
    },
    { truncate: 'operator_actions' },
  );

  it('runs an action once per key, and records who, why and what came of it', async () => {
    let runs = 0;
    const act = async () => (runs++, done);
    expect(await records.record(request('k1'), act)).toEqual({ action: 'note', outcome: 'done', detail: null });
    expect(await records.record(request('k1'), act)).toEqual({ action: 'note', outcome: 'already', detail: null });
    expect(runs).toBe(1);
    expect(await db.query('SELECT operator_uid, operator_email, reason, outcome FROM operator_actions')).toEqual([
      { operator_uid: 'op-1', operator_email: 'op@example.com', reason: 'why', outcome: 'done' },
    ]);
    await expect(records.record({ ...request('k1'), action: 'resend_email' }, act)).rejects.toBeInstanceOf(ActionKeyReused);
    expect(runs).toBe(1);
  });

  it('runs a key again only for the same operator, action, account and body: any other request under it runs nothing (issue 46)', async () => {
    const first = { ...request('k4'), accountUid: 'buyer-a', details: { amountMinor: 100 } };
    await expect(records.record(first, () => Promise.reject(new Error('Stripe did not answer')))).rejects.toThrow();
    let runs = 0;
    const act = async () => (runs++, done);
    for (const other of [
      { ...first, operator: { uid: 'op-2', email: 'other@example.com' } },
      { ...first, action: 'block' as const },
      { ...first, accountUid: 'buyer-b' },
      { ...first, accountUid: undefined },
      { ...first, reason: 'another reason' },
      { ...first, details: { amountMinor: 200 } },
      { ...first, details: {} },
      { ...first, details: { amountMinor: 100, esim: 'suspend' } },
    ]) {
      await expect(records.record(other, act), JSON.stringify(other)).rejects.toBeInstanceOf(ActionKeyReused);
    }
    expect(runs).toBe(0);
    const row = async () =>
      db.query('SELECT operator_uid, action, account_uid, reason, details, outcome FROM operator_actions WHERE idempotency_key = $1', [
        'k4',
      ]);
    expect(await row()).toEqual([
      { operator_uid: 'op-1', action: 'note', account_uid: 'buyer-a', reason: 'why', details: { amountMinor: 100 }, outcome: 'failed' },
    ]);
    // The same request (the same operator's retry of the same click) runs again, once; then no other under the key.
    expect(await records.record({ ...first, details: { amountMinor: 100 } }, act)).toMatchObject({ outcome: 'done' });
    expect(await records.record(first, act)).toMatchObject({ outcome: 'already' });
    await expect(records.record({ ...first, operator: { uid: 'op-2', email: null } }, act)).rejects.toBeInstanceOf(ActionKeyReused);
    expect(runs).toBe(1);
    expect((await row())[0]).toMatchObject({ operator_uid: 'op-1', outcome: 'done' });
  });

  it('runs again after a try that threw; one under way answers pending until it is stale', async () => {
    await expect(records.record(request('k2'), () => Promise.reject(new Error('Stripe did not answer')))).rejects.toThrow();
    expect((await db.query<{ outcome: string }>('SELECT outcome FROM operator_actions'))[0]?.outcome).toBe('failed');
    expect((await records.record(request('k2'), async () => done)).outcome).toBe('done');

    // An instance died while it ran: the row stays 'started'.
    let release!: () => void;
    const underWay = records.record(request('k3'), () => new Promise<ActionOutcome>((resolve) => (release = () => resolve(done))));
    await expect.poll(async () => (await db.query('SELECT 1 FROM operator_actions WHERE idempotency_key = $1', ['k3'])).length).toBe(1);
    let again = 0;
    expect((await records.record(request('k3'), async () => (again++, done))).outcome).toBe('pending');
    expect(again).toBe(0);
    await db.query(`UPDATE operator_actions SET started_at = now() - interval '10 minutes' WHERE idempotency_key = 'k3'`);
    expect((await records.record(request('k3'), async () => (again++, done))).outcome).toBe('done');
    expect(again).toBe(1);
    release();
    await underWay;
  });
});

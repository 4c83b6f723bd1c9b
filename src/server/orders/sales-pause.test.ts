import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import { openSalesPause, pauseSales, pauseSalesByOperator, resumeSales, resumeSalesIfFunded, salesPaused } from './sales-pause.ts';

/** The sales pause: the automatic one (partner out of balance) and the provider's own (issue 30 item 8). */
describe.each(databaseDrivers())('the sales pause on $name', ({ open }) => {
  let db: Db;
  const rich = { balance: async () => 1_000_000_000 } as unknown as EsimPartner;
  let actions = 0;
  const operatorAction = async () => {
    const [row] = await db.query<{ id: number }>(
      `INSERT INTO operator_actions (idempotency_key, operator_uid, action, reason) VALUES ($1, 'op', 'sales_pause', 'why') RETURNING id`,
      [`key-${++actions}`],
    );
    return Number(row!.id);
  };

  withDatabase(open, (opened) => (db = opened), { truncate: 'sales_pauses, operator_actions' });

  it("keeps an operator's pause however much balance the partner has, until the operator resumes", async () => {
    expect(await pauseSalesByOperator(db, 'inventory check', await operatorAction())).toBe('paused');
    expect(await pauseSalesByOperator(db, 'again', await operatorAction())).toBe('already');
    expect(await resumeSalesIfFunded(db, rich)).toBe(false);
    expect(await salesPaused(db)).toBe(true);
    expect(await openSalesPause(db)).toEqual({ reason: 'inventory check', since: expect.any(Date) });

    expect(await resumeSales(db)).toBe('resumed');
    expect(await resumeSales(db)).toBe('not_paused');
    expect(await openSalesPause(db)).toBeUndefined();
  });

  it('still ends the automatic pause once the balance covers what failed', async () => {
    await pauseSales(db, 50_000);
    expect((await openSalesPause(db))?.reason).toBe('partner_out_of_balance');
    expect(await resumeSalesIfFunded(db, rich)).toBe(true);
    expect(await salesPaused(db)).toBe(false);
  });

  it('makes an open automatic pause the operator’s when they pause, so a top-up does not end it', async () => {
    await pauseSales(db, 50_000);
    expect(await pauseSalesByOperator(db, 'fraud wave', await operatorAction())).toBe('paused');
    // A failed order meanwhile keeps it paused and the operator's.
    await pauseSales(db, 90_000);
    expect(await resumeSalesIfFunded(db, rich)).toBe(false);
    expect(await openSalesPause(db)).toMatchObject({ reason: 'fraud wave' });
    expect(await resumeSales(db)).toBe('resumed');
    expect(await salesPaused(db)).toBe(false);
  });
});

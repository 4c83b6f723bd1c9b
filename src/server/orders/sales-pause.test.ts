import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import { partnerRegistry } from '../partner/registry.ts';
import { openSalesPauses, pauseSales, pauseSalesByOperator, resumeSales, resumeSalesIfFunded, salesPaused } from './sales-pause.ts';

/** The sales pause: the automatic one (partner out of balance) and the provider's own (issue 30 item 8). */
describe.each(databaseDrivers())('the sales pause on $name', ({ open }) => {
  let db: Db;
  let goBalanceUsdE4 = 1_000_000_000;
  const rich = partnerRegistry({
    'esim-access': { balance: async () => 1_000_000_000 } as unknown as EsimPartner,
    'esim-go': { balance: async () => goBalanceUsdE4 } as unknown as EsimPartner,
  });
  const reasons = async () => (await openSalesPauses(db)).map((p) => [p.partner, p.reason]);
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
    expect(await resumeSalesIfFunded(db, rich)).toEqual([]);
    expect(await salesPaused(db)).toEqual({ shop: true, partners: [] });
    expect(await openSalesPauses(db)).toEqual([{ partner: null, reason: 'inventory check', since: expect.any(Date) }]);

    expect(await resumeSales(db)).toBe('resumed');
    expect(await resumeSales(db)).toBe('not_paused');
    expect(await openSalesPauses(db)).toEqual([]);
  });

  it("pauses one partner for want of balance, not the shop, and ends it once that partner's balance covers what failed", async () => {
    await pauseSales(db, 'esim-go', 50_000);
    expect(await salesPaused(db)).toEqual({ shop: false, partners: ['esim-go'] });
    expect(await reasons()).toEqual([['esim-go', 'partner_out_of_balance']]);
    goBalanceUsdE4 = 40_000;
    expect(await resumeSalesIfFunded(db, rich)).toEqual([]);
    // Asked again only a minute later.
    goBalanceUsdE4 = 1_000_000_000;
    expect(await resumeSalesIfFunded(db, rich)).toEqual([]);
    expect(await resumeSalesIfFunded(db, rich, new Date(Date.now() + 61_000))).toEqual(['esim-go']);
    expect(await salesPaused(db)).toEqual({ shop: false, partners: [] });
  });

  it('keeps each partner’s pause and the operator’s apart: a top-up ends only its partner’s', async () => {
    await pauseSales(db, 'esim-access', 50_000);
    await pauseSales(db, 'esim-go', 50_000);
    expect(await pauseSalesByOperator(db, 'fraud wave', await operatorAction())).toBe('paused');
    // A failed order meanwhile keeps its partner paused, at the larger amount.
    await pauseSales(db, 'esim-access', 90_000);
    expect(await reasons()).toEqual([
      [null, 'fraud wave'],
      ['esim-access', 'partner_out_of_balance'],
      ['esim-go', 'partner_out_of_balance'],
    ]);
    expect((await resumeSalesIfFunded(db, rich)).sort()).toEqual(['esim-access', 'esim-go']);
    expect(await salesPaused(db)).toEqual({ shop: true, partners: [] });
    expect(await resumeSales(db)).toBe('resumed');
    expect(await salesPaused(db)).toEqual({ shop: false, partners: [] });
  });
});

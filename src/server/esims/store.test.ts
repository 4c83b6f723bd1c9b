import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseDrivers } from '../../../tests/support/databases.ts';
import type { Db } from '../db/db.types.ts';
import { partnerWrites } from '../fulfilment/partner-writes.ts';
import type { EsimProfile } from '../partner/partner.types.ts';
import { ESIM_ACCESS } from '../partner/registry.ts';
import { ESIM_GO } from '../partner/esim-go/config.ts';
import { createEsimStore } from './store.ts';

/**
 * An eSIM is keyed by its partner and that partner's id for it (issue 48 item 1, migration 0050):
 * two partners naming eSIMs alike keep two eSIMs, each read, updated and topped up on its own.
 */
describe.each(databaseDrivers())('eSIMs keyed by (partner, id) on $name', (driver) => {
  let db: Db;
  beforeAll(async () => {
    db = await driver.open();
  });
  afterAll(() => db.close());

  async function paidOrder(): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO orders (id, uid, email, state, plan_id, destination, plan, amount_minor, currency, lang, kind)
       VALUES ($1, $2, 'buyer@example.com', 'provisioning', 'jp-1gb-7d', 'JP', '{"id": "jp-1gb-7d"}'::jsonb, 900, 'EUR', 'de', 'esim')`,
      [id, `uid-${id}`],
    );
    return id;
  }
  const profile = (esimTranNo: string, iccid: string): EsimProfile => ({
    esimTranNo,
    transactionId: null,
    iccid,
    activationCode: `LPA:1$smdp.example$${iccid}`,
    smdpAddress: 'smdp.example',
    matchingId: iccid,
    apn: null,
    status: 'ready',
    installed: false,
    installStep: null,
    expiresAt: null,
    totalBytes: 1_000,
    usedBytes: 0,
    validityDays: 7,
  });

  it('keeps two partners’ eSIMs of the same id apart: saved, read, refreshed, topped up each on its own', async () => {
    const esims = createEsimStore(db);
    const id = `T${randomUUID().slice(0, 8)}`;
    const [first, second] = [await paidOrder(), await paidOrder()];
    await esims.saveProfile(db, first, ESIM_ACCESS, profile(id, '8900000000000000001'));
    await esims.saveProfile(db, second, ESIM_GO, profile(id, '8900000000000000002'));

    expect((await esims.byKey({ partner: ESIM_ACCESS, esim_tran_no: id }))?.order_id).toBe(first);
    expect((await esims.byKey({ partner: ESIM_GO, esim_tran_no: id }))?.order_id).toBe(second);

    await esims.refresh(ESIM_GO, { ...profile(id, '8900000000000000002'), status: 'active', usedBytes: 500 });
    expect(await esims.byKey({ partner: ESIM_ACCESS, esim_tran_no: id })).toMatchObject({ status: 'ready', used_bytes: 0 });
    expect(await esims.byKey({ partner: ESIM_GO, esim_tran_no: id })).toMatchObject({ status: 'active', used_bytes: 500 });

    // One top-up at a time per eSIM: the other partner's eSIM of the same id has a slot of its own.
    const [topUpA, topUpB] = [await paidOrder(), await paidOrder()];
    expect(await partnerWrites.claimTopUp(db, topUpA, { partner: ESIM_ACCESS, esim_tran_no: id })).toBeDefined();
    expect(await partnerWrites.claimTopUp(db, topUpB, { partner: ESIM_GO, esim_tran_no: id })).toBeDefined();
    expect(await partnerWrites.claimTopUp(db, topUpB, { partner: ESIM_ACCESS, esim_tran_no: id })).toBeUndefined();
    expect((await partnerWrites.topUpSlotHolder(db, { partner: ESIM_GO, esim_tran_no: id }))?.order_id).toBe(topUpB);

    // The same partner's id for a second order is refused, never dropped in silence.
    await expect(esims.saveProfile(db, second, ESIM_ACCESS, profile(id, '8900000000000000003'))).rejects.toThrow(/another order/);
  });
});

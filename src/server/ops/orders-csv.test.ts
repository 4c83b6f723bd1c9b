import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import { paidOrders } from '../../../tests/support/paid-orders.ts';
import type { Db } from '../db/db.types.ts';
import { ordersCsv } from './orders-csv.ts';

/** The accountant's CSV (issue 30 item 8), read back as a spreadsheet program would, on PGlite and PostgreSQL. */
describe.each(databaseDrivers())('the orders CSV on $name', ({ open }) => {
  let db: Db;
  withDatabase(open, (opened) => (db = opened), { truncate: 'orders, payments, refunds' });

  const numberOf = async (id: string) => {
    const [row] = await db.query<{ number: number }>('SELECT number FROM orders WHERE id = $1', [id]);
    return `ES-2026-${String(row!.number).padStart(6, '0')}`;
  };

  it('has one row per paid order with its figures, in UTF-8 with a BOM, CRLF and a header', async () => {
    const data = paidOrders(db);
    const paid = await data.order({
      email: 'jürgen@example.com',
      createdAt: new Date('2026-03-02T09:00:00Z'),
      paidAt: new Date('2026-03-02T09:05:00Z'),
      amountMinor: 1199,
      wholesaleUsdE4: 51_234,
      buyerCountry: 'AT',
      stripeFeeMinor: 43,
    });
    await data.refund(paid, 300, new Date('2026-03-03T10:00:00Z'));
    await data.refund(paid, 200, new Date('2026-03-03T11:00:00Z'), 'pending');
    // No country or fee from Stripe yet.
    const bare = await data.order({
      createdAt: new Date('2026-03-04T09:00:00Z'),
      paidAt: new Date('2026-03-04T09:00:30Z'),
      amountMinor: 999,
    });
    // Not paid: not in the books.
    await data.order({ createdAt: new Date('2026-03-04T10:00:00Z') });
    await data.order({ createdAt: new Date('2026-03-04T10:00:00Z'), paidAt: new Date('2026-03-04T10:01:00Z'), paymentStatus: 'failed' });

    const csv = await ordersCsv(db, {});
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    // The accountant's columns, in their order: the header as the file starts.
    const header =
      'order,created_at,paid_at,buyer_email,buyer_country,currency,amount_minor,vat_minor,wholesale_usd,refunded_minor,stripe_fee_minor,stripe_fee_currency,settled_minor,settled_currency,kind';
    expect(csv.startsWith(`\uFEFF${header}\r\n`)).toBe(true);
    expect(parse(csv, { bom: true })).toEqual([
      header.split(','),
      [
        await numberOf(paid),
        '2026-03-02T09:00:00.000Z',
        '2026-03-02T09:05:00.000Z',
        'jürgen@example.com',
        'AT',
        'EUR',
        '1199',
        '191',
        '5.1234',
        '300',
        '43',
        'EUR',
        '',
        '',
        'esim',
      ],
      [
        await numberOf(bare),
        '2026-03-04T09:00:00.000Z',
        '2026-03-04T09:00:30.000Z',
        'buyer@example.com',
        '',
        'EUR',
        '999',
        '160',
        '5.0000',
        '0',
        '',
        '',
        '',
        '',
        'esim',
      ],
    ]);
  });

  it('gives an order paid in another currency its settled euros, and each order of a cart its own share of the one charge (issue 34)', async () => {
    const data = paidOrders(db);
    const paidAt = new Date('2026-03-02T09:05:00Z');
    const createdAt = new Date('2026-03-02T09:00:00Z');
    // $5.49 settled as €4.72, fee €0.59.
    const dollars = await data.order({ createdAt, paidAt, currency: 'USD', amountMinor: 549, stripeFeeMinor: 59, settledMinor: 472 });
    // One cart paid €30 at once: €10 and €20, the charge's fee (€0.70) and settlement booked whole on both rows.
    const cart = { createdAt, paidAt, stripeFeeMinor: 70, settledMinor: 3000, checkoutSessionId: 'cs_cart' };
    const small = await data.order({ ...cart, amountMinor: 1000 });
    const large = await data.order({ ...cart, amountMinor: 2000 });
    const rows = parse(await ordersCsv(db, {}), { bom: true, columns: true }) as Record<string, string>[];
    const figures = (id: string) => rows.find((row) => row.order === id)!;
    expect(figures(await numberOf(dollars))).toMatchObject({
      currency: 'USD',
      amount_minor: '549',
      stripe_fee_minor: '59',
      settled_minor: '472',
      settled_currency: 'EUR',
    });
    expect(figures(await numberOf(small))).toMatchObject({ amount_minor: '1000', stripe_fee_minor: '23', settled_minor: '1000' });
    expect(figures(await numberOf(large))).toMatchObject({ amount_minor: '2000', stripe_fee_minor: '47', settled_minor: '2000' });
  });

  it('writes a buyer address that looks like a formula as quoted text, never a formula', async () => {
    const data = paidOrders(db);
    const hyperlink = '=HYPERLINK("http://x","y")@example.com';
    for (const email of [hyperlink, '+49@example.com', '-1+1@example.com', '@SUM(1)@example.com', '\t=1@example.com', 'a,b@example.com']) {
      await data.order({ email, createdAt: new Date('2026-03-02T09:00:00Z'), paidAt: new Date('2026-03-02T09:05:00Z') });
    }
    const csv = await ordersCsv(db, {});
    expect(csv).toContain(`,"'=HYPERLINK(""http://x"",""y"")@example.com",`);
    const emails = (parse(csv, { bom: true, columns: true }) as Record<string, string>[]).map((row) => row.buyer_email);
    expect(emails).toEqual([
      `'${hyperlink}`,
      "'+49@example.com",
      "'-1+1@example.com",
      "'@SUM(1)@example.com",
      "'\t=1@example.com",
      'a,b@example.com',
    ]);
  });

  it('takes the orders paid from one Berlin day to another, both included', async () => {
    const data = paidOrders(db);
    const paidAt = (iso: string) => data.order({ email: iso, createdAt: new Date(iso), paidAt: new Date(iso) });
    await paidAt('2026-02-28T22:59:00Z'); // 23:59 on 28 February in Berlin
    await paidAt('2026-02-28T23:00:00Z'); // 00:00 on 1 March
    await paidAt('2026-03-31T21:59:00Z'); // 23:59 on 31 March (summer time)
    await paidAt('2026-03-31T22:00:00Z'); // 00:00 on 1 April
    const emails = async (range: { from?: string; to?: string }) =>
      (parse(await ordersCsv(db, range), { bom: true, columns: true }) as Record<string, string>[]).map((row) => row.buyer_email);
    expect(await emails({ from: '2026-03-01', to: '2026-03-31' })).toEqual(['2026-02-28T23:00:00Z', '2026-03-31T21:59:00Z']);
    expect(await emails({ to: '2026-02-28' })).toEqual(['2026-02-28T22:59:00Z']);
    expect(await emails({ from: '2026-04-01' })).toEqual(['2026-03-31T22:00:00Z']);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { databaseDrivers, withDatabase } from '../../../tests/support/databases.ts';
import { LOW_BALANCE_CHECK_EVERY_MS } from '../../config/constants.ts';
import type { Db } from '../db/db.types.ts';
import type { MailMessage, Mailer } from '../mail/mailer.types.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import { partnerRegistry } from '../partner/registry.ts';
import { balanceCheckDue, checkPartnerBalance } from './balance-alert.ts';

/** The provider's low-balance e-mail (issue 30 item 8): once per crossing of the threshold, on PGlite and PostgreSQL. */
describe.each(databaseDrivers())('the partner balance alert on $name', ({ open }) => {
  let db: Db;
  let balanceUsd: number | Error;
  let failSends: boolean;
  let sent: MailMessage[];
  let goBalanceUsd = 1_000;
  const partners = partnerRegistry({
    'esim-access': {
      name: 'eSIM Access',
      balance: async () => {
        if (balanceUsd instanceof Error) throw balanceUsd;
        return Math.round(balanceUsd * 10_000);
      },
    } as unknown as EsimPartner,
    'esim-go': { name: 'eSIM Go', balance: async () => goBalanceUsd * 10_000 } as unknown as EsimPartner,
  });
  const mailer: Mailer = {
    async send(message) {
      if (failSends) throw new Error('550 relay down');
      sent.push(message);
      return { messageId: `<${sent.length}@test>` };
    },
    close() {},
  };
  const check = (providerEmail: string | null = 'owner@example.com', partner = 'esim-access') =>
    checkPartnerBalance({ db, partners, partner, mailer, providerEmail: providerEmail ?? undefined, thresholdUsd: 200 });

  withDatabase(open, (opened) => (db = opened), { truncate: 'balance_alerts, balance_checks' });
  beforeEach(() => {
    sent = [];
    failSends = false;
  });

  it('e-mails once per crossing: below, below, above, below make two e-mails', async () => {
    const outcomes = [];
    for (const usd of [150, 120.5, 250, 199.99]) {
      balanceUsd = usd;
      outcomes.push(await check());
    }
    expect(outcomes).toEqual(['low', 'low', 'ok', 'low']);
    expect(sent.map((m) => m.to)).toEqual(['owner@example.com', 'owner@example.com']);
    expect(sent[0]!.subject).toContain('$150.00');
    expect(sent[0]!.text).toContain('below your threshold of $200.00');
    expect(sent[1]!.text).toContain('Das Prepaid-Guthaben bei eSIM Access beträgt 199,99');
    const rows = await db.query<{ cleared: boolean; emailed: boolean }>(
      'SELECT cleared_at IS NOT NULL AS cleared, emailed_at IS NOT NULL AS emailed FROM balance_alerts ORDER BY id',
    );
    expect(rows).toEqual([
      { cleared: true, emailed: true },
      { cleared: false, emailed: true },
    ]);
  });

  it("keeps each partner's crossing apart: eSIM Go low alerts once, naming it, whatever eSIM Access's balance does", async () => {
    balanceUsd = 500;
    goBalanceUsd = 50;
    expect(await check('owner@example.com', 'esim-go')).toBe('low');
    expect(await check('owner@example.com', 'esim-access')).toBe('ok');
    expect(await check('owner@example.com', 'esim-go')).toBe('low');
    expect(sent.map((m) => m.subject)).toEqual([expect.stringContaining('Low balance at eSIM Go: $50.00')]);
    expect(sent[0]!.text).toContain('Das Prepaid-Guthaben bei eSIM Go beträgt 50,00');
    // eSIM Access crossing now is a crossing of its own.
    balanceUsd = 100;
    expect(await check()).toBe('low');
    expect(sent.map((m) => m.subject)).toEqual([expect.stringContaining('eSIM Go'), expect.stringContaining('Low balance at eSIM Access')]);
    goBalanceUsd = 1_000;
  });

  it('sends a failed e-mail at the next check that still finds the balance low, and one that had no address once there is one', async () => {
    balanceUsd = 100;
    failSends = true;
    expect(await check()).toBe('low');
    expect(sent).toHaveLength(0);
    failSends = false;
    await check();
    await check();
    expect(sent).toHaveLength(1);

    balanceUsd = 500;
    await check();
    balanceUsd = 10;
    await check(null);
    expect(sent).toHaveLength(1);
    await check();
    expect(sent).toHaveLength(2);
  });

  it('says unknown and changes nothing when the partner cannot be read', async () => {
    balanceUsd = 100;
    await check();
    balanceUsd = new Error('partner down');
    expect(await check()).toBe('unknown');
    balanceUsd = 100;
    await check();
    expect(sent).toHaveLength(1);
  });

  it('lets one check in 10 minutes through, whichever instance asks', async () => {
    const t0 = new Date('2026-03-30T10:00:00Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);
    expect(await Promise.all([balanceCheckDue(db, t0), balanceCheckDue(db, t0)])).toEqual(expect.arrayContaining([true, false]));
    expect(await balanceCheckDue(db, at(LOW_BALANCE_CHECK_EVERY_MS - 1))).toBe(false);
    expect(await balanceCheckDue(db, at(LOW_BALANCE_CHECK_EVERY_MS))).toBe(true);
    expect(await balanceCheckDue(db, at(LOW_BALANCE_CHECK_EVERY_MS + 60_000))).toBe(false);
  });
});

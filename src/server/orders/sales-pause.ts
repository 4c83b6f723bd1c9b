import type { Db, Queryable } from '../db/db.types.ts';
import type { Partners } from '../partner/registry.types.ts';
import type { SalesPause, SalesPauseCache } from './sales-pause.types.ts';

/** How often a paused shop asks the partner whether its balance was topped up. */
const BALANCE_CHECK_EVERY_MS = 60_000;
/** The channel on which every write of a pause announces it (SalesPauseCache); no payload. */
const SALES_PAUSES = 'sales_pauses';
/** For the RETURNING of a pause's writes: announced once the writing transaction commits. */
const ANNOUNCE = `pg_notify('${SALES_PAUSES}', '')`;
/** A pause the shop made itself (a partner out of balance), not one an operator asked for (0018). */
const AUTOMATIC = `operator_action_id IS NULL AND reason = 'partner_out_of_balance' AND partner IS NOT NULL`;
/** The conflict target of "one open pause for the shop, one for each partner" (migration 0047). */
const ONE_OPEN = `((COALESCE(partner, ''))) WHERE cleared_at IS NULL`;

/** Nothing paused: the answer kept between orders. */
const SELLING: SalesPause = { shop: false, partners: [] };

/**
 * A partner's prepaid balance ran dry (issue 24 item 5, per partner since issue 48): the order that
 * hit it goes to another partner or is refunded, and no order goes to this partner until the
 * reconcile job reads a balance that covers what failed. The shop stops selling (POST /orders
 * answers 503) only when no partner is left for a plan. Whoever runs the shop sees an alert in the
 * log and the pause in `npm run orders:audit`.
 */
export async function pauseSales(tx: Queryable, partner: string, neededUsdE4: number): Promise<void> {
  const opened = await tx.query(
    `INSERT INTO sales_pauses (reason, needed_usd_e4, partner) VALUES ('partner_out_of_balance', $1, $2)
     ON CONFLICT ${ONE_OPEN} DO UPDATE SET needed_usd_e4 = GREATEST(sales_pauses.needed_usd_e4, EXCLUDED.needed_usd_e4)
     RETURNING (xmax = 0) AS opened, ${ANNOUNCE}`,
    [neededUsdE4, partner],
  );
  if ((opened[0] as { opened?: boolean } | undefined)?.opened) {
    console.error(`ALERT: the eSIM partner ${partner} refused an order for want of balance; no order goes to it until it is topped up`);
  }
}

/** The pauses in force, read from the database (POST /orders asks SalesPauseCache). */
export async function salesPaused(db: Queryable): Promise<SalesPause> {
  const rows = await db.query<{ partner: string | null }>('SELECT partner FROM sales_pauses WHERE cleared_at IS NULL');
  if (rows.length === 0) return SELLING;
  return { shop: rows.some((row) => row.partner === null), partners: rows.flatMap((row) => (row.partner ? [row.partner] : [])) };
}

/** How long an instance trusts that sales are not paused without reading it again (SalesPauseCache). */
export const SALES_PAUSE_TTL_MS = 2_000;

/**
 * The pauses in force, for POST /orders without a read of its own on every order (issue 31: the
 * order path in 2 round trips). Only "nothing paused" is kept, and for at most `ttlMs`; any pause
 * is read again on every order, so a resume sells again at once, and a paused shop's or partner's
 * orders pay the read.
 *
 * A pause made anywhere stops this instance's sales within milliseconds: every write of a pause
 * above announces it with pg_notify in its own statement (delivered on commit, nothing on a
 * rollback), and each instance LISTENs (on a server: one connection of its own, db/postgres.ts;
 * PGlite is one process, whose own writes notify it in-process). A notification forgets the kept
 * answer, and so does a lost listening connection (notifications of the meantime are gone). The
 * TTL is the safety net, and within it the promise "a pause stops sales within seconds" holds even
 * when a notification is lost or a pause is written by hand in psql without one: every instance
 * reads again at least every `ttlMs`, a read every 2 s an instance, nothing at 200 orders a second.
 * A read that was under way when a notification came is not kept (it may predate the pause).
 */
export function createSalesPauseCache(db: Pick<Db, 'query' | 'listen'>, ttlMs = SALES_PAUSE_TTL_MS): SalesPauseCache {
  /** Until when "not paused" is trusted (0: read). */
  let openUntil = 0;
  /** Counts the notifications (and gaps): a read started before one is not kept. */
  let generation = 0;
  let listening: Promise<unknown> | undefined;
  /** The read under way, shared by the orders that arrive meanwhile, and its generation. */
  let reading: { generation: number; paused: Promise<SalesPause> } | undefined;

  const forget = () => {
    generation++;
    openUntil = 0;
  };
  const listen = () =>
    (listening ??= db.listen(SALES_PAUSES, forget, forget).catch((error: unknown) => {
      // The TTL alone meanwhile; the next order tries again.
      console.error('orders: not listening to sales pauses:', error instanceof Error ? error.message : error);
      listening = undefined;
    }));

  return {
    async paused() {
      // Listening before the first read, so no pause between the two is missed.
      await listen();
      if (performance.now() < openUntil) return SELLING;
      if (reading?.generation !== generation) {
        const started = { generation, at: performance.now() };
        const paused = salesPaused(db).then((answer) => {
          if (answer === SELLING && generation === started.generation) openUntil = started.at + ttlMs;
          return answer;
        });
        reading = { generation: started.generation, paused };
        void paused
          .finally(() => {
            if (reading?.paused === paused) reading = undefined;
          })
          .catch(() => {});
      }
      return reading!.paused;
    },
  };
}

/**
 * For each partner paused for want of balance, at most once a minute: its balance, and orders to it
 * again once that covers what failed. Answers the partners resumed. An operator's pause is never
 * cleared here: only their resume ends it. A partner this shop no longer runs with stays paused.
 */
export async function resumeSalesIfFunded(db: Db, partners: Partners, now = new Date()): Promise<string[]> {
  const pauses = await db.query<{ id: number; partner: string; needed_usd_e4: number; checked_at: Date | null }>(
    `SELECT id, partner, needed_usd_e4, checked_at FROM sales_pauses WHERE cleared_at IS NULL AND ${AUTOMATIC}`,
  );
  const resumed: string[] = [];
  for (const pause of pauses) {
    if (!partners.ids.includes(pause.partner)) continue;
    if (pause.checked_at && now.getTime() - pause.checked_at.getTime() < BALANCE_CHECK_EVERY_MS) continue;
    await db.query('UPDATE sales_pauses SET checked_at = $2 WHERE id = $1', [pause.id, now]);
    const balance = await partners.of(pause.partner).balance();
    if (balance < pause.needed_usd_e4) continue;
    const cleared = await db.query(
      `UPDATE sales_pauses SET cleared_at = now() WHERE id = $1 AND cleared_at IS NULL AND ${AUTOMATIC} RETURNING id, ${ANNOUNCE}`,
      [pause.id],
    );
    if (cleared.length === 0) continue;
    console.error(`sales resumed: the balance at ${pause.partner} covers orders again`);
    resumed.push(pause.partner);
  }
  return resumed;
}

/**
 * The provider stops selling (issue 30 item 8): POST /orders answers 503 until they resume. Their
 * pause is the whole shop's, beside any partner's, so a topped-up balance does not end it.
 */
export async function pauseSalesByOperator(db: Queryable, reason: string, operatorActionId: number): Promise<'paused' | 'already'> {
  const rows = await db.query(
    `INSERT INTO sales_pauses (reason, needed_usd_e4, operator_action_id) VALUES ($1, 0, $2)
     ON CONFLICT ${ONE_OPEN} DO NOTHING RETURNING id, ${ANNOUNCE}`,
    [reason, operatorActionId],
  );
  return rows.length > 0 ? 'paused' : 'already';
}

/** The provider sells again: whatever pause is open ends, theirs or the automatic one. */
export async function resumeSales(db: Queryable): Promise<'resumed' | 'not_paused'> {
  const rows = await db.query(`UPDATE sales_pauses SET cleared_at = now() WHERE cleared_at IS NULL RETURNING id, ${ANNOUNCE}`);
  return rows.length > 0 ? 'resumed' : 'not_paused';
}

/** The pauses in force, the shop's first: why ('partner_out_of_balance', or the operator's reason), since when, and whose (none: the shop's). */
export async function openSalesPauses(db: Queryable): Promise<{ partner: string | null; reason: string; since: Date }[]> {
  return db.query('SELECT partner, reason, since FROM sales_pauses WHERE cleared_at IS NULL ORDER BY partner NULLS FIRST, since');
}

import type { Db, Queryable } from '../db/db.types.ts';
import type { EsimPartner } from '../partner/partner.types.ts';
import type { SalesPauseCache } from './sales-pause.types.ts';

/** How often a paused shop asks the partner whether its balance was topped up. */
const BALANCE_CHECK_EVERY_MS = 60_000;
/** The channel on which every write of a pause announces it (SalesPauseCache); no payload. */
const SALES_PAUSES = 'sales_pauses';
/** For the RETURNING of a pause's writes: announced once the writing transaction commits. */
const ANNOUNCE = `pg_notify('${SALES_PAUSES}', '')`;
/** A pause the shop made itself (partner out of balance), not one an operator asked for (0018). */
const AUTOMATIC = `operator_action_id IS NULL AND reason = 'partner_out_of_balance'`;

/**
 * The partner's prepaid balance ran dry (issue 24 item 5): the order that hit it is refunded, and
 * the shop stops selling (POST /orders answers 503) instead of taking money it would refund, until
 * the reconcile job reads a balance that covers what failed. Whoever runs the shop sees an alert
 * in the log and the pause in `npm run orders:audit`.
 */
export async function pauseSales(tx: Queryable, neededUsdE4: number): Promise<void> {
  const opened = await tx.query(
    `INSERT INTO sales_pauses (reason, needed_usd_e4) VALUES ('partner_out_of_balance', $1)
     ON CONFLICT ((true)) WHERE cleared_at IS NULL DO UPDATE SET needed_usd_e4 = GREATEST(sales_pauses.needed_usd_e4, EXCLUDED.needed_usd_e4)
     RETURNING (xmax = 0) AS opened, ${ANNOUNCE}`,
    [neededUsdE4],
  );
  if ((opened[0] as { opened?: boolean } | undefined)?.opened) {
    console.error('ALERT: the eSIM partner refused an order for want of balance; selling is paused until it is topped up');
  }
}

/** Whether a pause is open, read from the database (POST /orders asks SalesPauseCache). */
export async function salesPaused(db: Queryable): Promise<boolean> {
  return (await db.query('SELECT 1 FROM sales_pauses WHERE cleared_at IS NULL')).length > 0;
}

/** How long an instance trusts that sales are not paused without reading it again (SalesPauseCache). */
export const SALES_PAUSE_TTL_MS = 2_000;

/**
 * Whether sales are paused, for POST /orders without a read of its own on every order (issue 31:
 * the order path in 2 round trips). Only "not paused" is kept, and for at most `ttlMs`; "paused" is
 * read again on every order, so a resume sells again at once, and a paused shop's orders (answered
 * 503 whatever) pay the read.
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
  let reading: { generation: number; paused: Promise<boolean> } | undefined;

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
      if (performance.now() < openUntil) return false;
      if (reading?.generation !== generation) {
        const started = { generation, at: performance.now() };
        const paused = salesPaused(db).then((answer) => {
          if (!answer && generation === started.generation) openUntil = started.at + ttlMs;
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
 * While paused for want of balance, at most once a minute: the partner's balance, and selling again
 * once it covers what failed. An operator's pause is never cleared here: only their resume ends it.
 */
export async function resumeSalesIfFunded(db: Db, partner: EsimPartner, now = new Date()): Promise<boolean> {
  const [pause] = await db.query<{ id: number; needed_usd_e4: number; checked_at: Date | null }>(
    `SELECT id, needed_usd_e4, checked_at FROM sales_pauses WHERE cleared_at IS NULL AND ${AUTOMATIC}`,
  );
  if (!pause || (pause.checked_at && now.getTime() - pause.checked_at.getTime() < BALANCE_CHECK_EVERY_MS)) return false;
  await db.query('UPDATE sales_pauses SET checked_at = $2 WHERE id = $1', [pause.id, now]);
  const balance = await partner.balance();
  if (balance < pause.needed_usd_e4) return false;
  // An operator may have taken the pause over while the partner was asked.
  const cleared = await db.query(
    `UPDATE sales_pauses SET cleared_at = now() WHERE id = $1 AND cleared_at IS NULL AND ${AUTOMATIC} RETURNING id, ${ANNOUNCE}`,
    [pause.id],
  );
  if (cleared.length === 0) return false;
  console.error('sales resumed: the partner balance covers orders again');
  return true;
}

/**
 * The provider stops selling (issue 30 item 8): POST /orders answers 503 until they resume. An open
 * automatic pause becomes theirs, so a topped-up balance does not end it behind their back.
 */
export async function pauseSalesByOperator(db: Queryable, reason: string, operatorActionId: number): Promise<'paused' | 'already'> {
  const rows = await db.query(
    `INSERT INTO sales_pauses (reason, needed_usd_e4, operator_action_id) VALUES ($1, 0, $2)
     ON CONFLICT ((true)) WHERE cleared_at IS NULL
     DO UPDATE SET reason = EXCLUDED.reason, operator_action_id = EXCLUDED.operator_action_id WHERE sales_pauses.operator_action_id IS NULL
     RETURNING id, ${ANNOUNCE}`,
    [reason, operatorActionId],
  );
  return rows.length > 0 ? 'paused' : 'already';
}

/** The provider sells again: whatever pause is open ends, theirs or the automatic one. */
export async function resumeSales(db: Queryable): Promise<'resumed' | 'not_paused'> {
  const rows = await db.query(`UPDATE sales_pauses SET cleared_at = now() WHERE cleared_at IS NULL RETURNING id, ${ANNOUNCE}`);
  return rows.length > 0 ? 'resumed' : 'not_paused';
}

/** The pause in force, if any: why ('partner_out_of_balance', or the operator's reason) and since when. */
export async function openSalesPause(db: Queryable): Promise<{ reason: string; since: Date } | undefined> {
  const [pause] = await db.query<{ reason: string; since: Date }>('SELECT reason, since FROM sales_pauses WHERE cleared_at IS NULL');
  return pause;
}

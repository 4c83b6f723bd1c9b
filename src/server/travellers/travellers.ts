import type { Queryable } from '../db/db.types.ts';

/**
 * Who travels on an eSIM and when (order_travellers, migration 0043): the traveller the buyer gave
 * it to (issue 33; none: the buyer's own), their address if given and when their e-mail went out,
 * and the day the trip starts if the buyer said (the get-connected check). Written here, by
 * orders/store.ts (the trip's start given at checkout) and by esims/replacement.ts (a replacement
 * keeps the trip's start of the eSIM it replaces).
 */
export interface OrderTraveller {
  traveller_name: string | null;
  traveller_email: string | null;
  traveller_emailed_at: Date | null;
  trip_starts_on: string | null;
}

/** The traveller of `o` (an order) as OrderTraveller's columns, with TRAVELLER_JOIN, for a SELECT beside `o.*`. */
export const TRAVELLER_COLUMNS =
  't.name AS traveller_name, t.email AS traveller_email, t.emailed_at AS traveller_emailed_at, t.trip_starts_on';
export const TRAVELLER_JOIN = 'LEFT JOIN order_travellers t ON t.order_id = o.id';

/** An order's traveller and trip start (all null when the buyer named none and gave no date). */
export async function travellerOf(db: Queryable, orderId: string): Promise<OrderTraveller> {
  const [row] = await db.query<OrderTraveller>(`SELECT ${TRAVELLER_COLUMNS} FROM order_travellers t WHERE t.order_id = $1`, [orderId]);
  return row ?? { traveller_name: null, traveller_email: null, traveller_emailed_at: null, trip_starts_on: null };
}

/**
 * Names the eSIM's traveller (or none: null), in the caller's transaction; their e-mail is owed
 * again (a new name or address gets a new e-mail). The trip's start stays.
 */
export async function nameTraveller(tx: Queryable, orderId: string, name: string | null, email: string | null): Promise<void> {
  await tx.query(
    `INSERT INTO order_travellers (order_id, name, email) VALUES ($1, $2, $3)
     ON CONFLICT (order_id) DO UPDATE SET name = excluded.name, email = excluded.email, emailed_at = NULL`,
    [orderId, name, email],
  );
}

/** The traveller's e-mail went out. */
export async function travellerEmailed(tx: Queryable, orderId: string): Promise<void> {
  await tx.query('UPDATE order_travellers SET emailed_at = now() WHERE order_id = $1', [orderId]);
}

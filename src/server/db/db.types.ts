/**
 * One query layer for both drivers (DESIGN 6): plain SQL with $1 parameters, run by `pg` against
 * a PostgreSQL server (DATABASE_URL) or by PGlite in-process (data under .data/ by default).
 */
export interface Queryable {
  /** Rows of a parameterised statement ($1, $2, ...). */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
}

export interface Db extends Queryable {
  /**
   * As `query`, for the few statements every order runs (issue 31): on a PostgreSQL server each
   * connection parses and plans it once and then only binds and runs it. Outside a transaction
   * only, and for a statement whose text does not vary from call to call.
   */
  prepared<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs `work` in one transaction (BEGIN … COMMIT, ROLLBACK on a throw) and answers its result. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * PostgreSQL's LISTEN: `onNotify` gets the payload of each NOTIFY on `channel` (`pg_notify`) from
   * any connection to this database, once its transaction commits; `onGap` is called when some may
   * have been missed (the listening connection was lost and made again). Answers once listening,
   * with the way to stop.
   */
  listen(channel: string, onNotify: (payload: string) => void, onGap?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * Values as both drivers answer them, so code and tests see the same thing on PGlite and on a
 * server: int8 (bigint, count(*), identity columns) as a JS number, timestamptz as a Date, json and
 * jsonb as parsed values, numeric as a string (both libraries' default).
 * A jsonb parameter is passed as an object or as JSON text (`JSON.stringify(list)` with `$1::jsonb`):
 * `pg` would send a bare JS array as a PostgreSQL array, PGlite as JSON.
 */
export const INT8_OID = 20;

/** int8 as a number; a value beyond 2^53 would lose digits silently, so it throws instead. */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`int8 value ${text} does not fit a JS number`);
  return value;
}

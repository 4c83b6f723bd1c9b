import type { AlertChannel, AlertKind, AlertPreferences } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';

/** Each user's choice of alerts per kind and channel (preferences.ts); what was never chosen is on. */
export interface AlertPreferenceStore {
  /** Every kind's channels for the user, as the profile shows them. */
  get(uid: string): Promise<AlertPreferences>;
  /** Saves every kind's channels (the whole table, as the profile shows it). */
  set(uid: string, preferences: AlertPreferences): Promise<void>;
  /** Turns one kind's channel on or off (in `tx` when given: an unsubscribe link's). */
  turn(uid: string, kind: AlertKind, channel: AlertChannel, enabled: boolean, tx?: Queryable): Promise<void>;
  /** Whether this kind may go to the user by this channel. */
  allows(uid: string, kind: AlertKind, channel: AlertChannel): Promise<boolean>;
  /** With the account (in its deletion's transaction). */
  forget(tx: Queryable, uid: string): Promise<void>;
}

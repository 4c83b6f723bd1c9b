import { ALERT_KIND_CHANNELS, ALERT_KINDS, type AlertChannel, type AlertKind, type AlertPreferences } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import type { AlertPreferenceStore } from './preferences.types.ts';

/**
 * Each buyer's choice of alerts (migration 0011), per kind and channel: on unless turned off
 * (alerts about an eSIM the buyer paid for are part of the service; each e-mail can stop its kind
 * in one click, and push needs the device's own permission first). Saved on the server, so every
 * device and the e-mails follow it.
 */
export function createAlertPreferences(db: Queryable): AlertPreferenceStore {
  return {
    async get(uid: string): Promise<AlertPreferences> {
      const rows = await db.query<{ kind: AlertKind; channel: AlertChannel; enabled: boolean }>(
        'SELECT kind, channel, enabled FROM alert_preferences WHERE uid = $1',
        [uid],
      );
      const enabled = (kind: AlertKind, channel: AlertChannel) =>
        ALERT_KIND_CHANNELS[kind].includes(channel) && (rows.find((r) => r.kind === kind && r.channel === channel)?.enabled ?? true);
      return Object.fromEntries(
        ALERT_KINDS.map((kind) => [kind, { email: enabled(kind, 'email'), push: enabled(kind, 'push') }]),
      ) as AlertPreferences;
    },

    /** Saves every kind's channels (the whole table, as the profile shows it). */
    async set(uid: string, preferences: AlertPreferences): Promise<void> {
      for (const kind of ALERT_KINDS) {
        for (const channel of ALERT_KIND_CHANNELS[kind]) await this.turn(uid, kind, channel, preferences[kind][channel]);
      }
    },

    async turn(uid: string, kind: AlertKind, channel: AlertChannel, enabled: boolean, tx: Queryable = db): Promise<void> {
      await tx.query(
        `INSERT INTO alert_preferences (uid, kind, channel, enabled) VALUES ($1, $2, $3, $4)
         ON CONFLICT (uid, kind, channel) DO UPDATE SET enabled = excluded.enabled, updated_at = now()`,
        [uid, kind, channel, enabled],
      );
    },

    async allows(uid: string, kind: AlertKind, channel: AlertChannel): Promise<boolean> {
      if (!ALERT_KIND_CHANNELS[kind].includes(channel)) return false;
      const [row] = await db.query<{ enabled: boolean }>(
        'SELECT enabled FROM alert_preferences WHERE uid = $1 AND kind = $2 AND channel = $3',
        [uid, kind, channel],
      );
      return row?.enabled ?? true;
    },

    /** With the account (in its deletion's transaction). */
    async forget(tx: Queryable, uid: string): Promise<void> {
      await tx.query('DELETE FROM alert_preferences WHERE uid = $1', [uid]);
    },
  };
}

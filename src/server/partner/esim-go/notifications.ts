import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { InstallStep } from '../../../contract/shop-api.ts';
import type { PartnerNotification } from '../partner.types.ts';

/**
 * eSIM Go's callbacks (V3, set in the portal: Account Settings → API Details → Callback Version)
 * in our terms. Signed: the header X-Signature-SHA256 is the HMAC-SHA256 of the raw body keyed with
 * the API key; the API reference's example digests it to base64 (eSIM Usage Callback), the webhooks
 * guide's to hex (guides/webhooks): both are accepted. A verified callback is still a hint: the shop
 * reads the eSIM back before it acts (DESIGN 6).
 */

/** Whether the header is the body's signature with this key, in hex or base64; compared in constant time. */
export function verifyEsimGoSignature(rawBody: string, header: string | undefined, apiKey: string): boolean {
  const given = (header ?? '').trim();
  if (!given || !apiKey) return false;
  const expected = createHmac('sha256', apiKey).update(rawBody, 'utf8').digest();
  const decoded = /^[0-9a-f]{64}$/i.test(given)
    ? Buffer.from(given, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(given)
      ? Buffer.from(given, 'base64')
      : undefined;
  return decoded !== undefined && decoded.length === expected.length && timingSafeEqual(decoded, expected);
}

/** An ICCID as a string of 18 to 22 digits; a JSON number that long has lost digits (a double holds 15 to 16): none. */
const iccid = z
  .string()
  .regex(/^\d{18,22}$/)
  .optional()
  .catch(undefined);
const text = z.string().min(1).optional().catch(undefined);
const bytes = z.coerce.number().nonnegative().catch(0);
const time = z
  .string()
  .transform((s) => new Date(s))
  .refine((d) => !Number.isNaN(d.getTime()))
  .nullish()
  .catch(null);

/**
 * The usage callbacks (eSIM Usage Callback, BundleAlert; Notifications: Utilisation at 1, 50, 80 and
 * 100 % used, FirstUse once): `{ iccid, alertType, bundle: { id, reference, name, description,
 * initialQuantity, remainingQuantity (bytes), startTime, endTime, unlimited } }`.
 */
const Alert = z.looseObject({
  alertType: z.string(),
  iccid,
  bundle: z
    .looseObject({ initialQuantity: bytes, remainingQuantity: bytes, endTime: time })
    .catch({ initialQuantity: 0, remainingQuantity: 0, endTime: null }),
});
/** Notifications, eSIM Deletion Scheduled and eSIM Deleted: `{ date, event, iccid }`. */
const EsimEvent = z.looseObject({ event: z.string(), iccid, date: time });
/**
 * Notifications, Profile Status Change: the eSIM's id, 'the new status of the eSIM profile, as
 * returned by Get eSIM details' (Downloaded, Installed, Released), when, and the device. The docs'
 * page shows the values, not the field names: read as `iccid` and `profileStatus` (Get eSIM
 * details' names; `status` too), our assumption.
 */
const ProfileChange = z.looseObject({ iccid, profileStatus: text, status: text });

const STEP_BY_PROFILE: Readonly<Record<string, InstallStep>> = { downloaded: 'downloaded', installed: 'installed', released: 'deleted' };
const DAY_MS = 86_400_000;

/**
 * A callback body (the raw text, or parsed) in our terms; undefined for anything else, never a throw.
 * The raw text is preferred: the docs' First Use example sends the ICCID as a JSON number, too long
 * for a double, so it is taken from the text itself when it is one.
 */
export function parseEsimGoNotification(body: unknown): PartnerNotification | undefined {
  let value = body;
  let rawIccid: string | undefined;
  if (typeof body === 'string') {
    rawIccid = /"iccid"\s*:\s*"?(\d{18,22})"?/.exec(body)?.[1];
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const about = (iccid: string | undefined) => ({
    notifyId: undefined,
    partnerOrderNo: undefined,
    transactionId: undefined,
    // The shop's key adds our customerRef, which no callback carries: the eSIM is named by its ICCID.
    esimTranNo: undefined,
    iccid: rawIccid ?? iccid,
  });
  // A profile status change may carry an alertType of its own: told apart by its status and no bundle.
  const change = ProfileChange.safeParse(value);
  const step = change.success ? STEP_BY_PROFILE[(change.data.profileStatus ?? change.data.status ?? '').toLowerCase()] : undefined;
  if (change.success && step && !('bundle' in value)) {
    const iccid = rawIccid ?? change.data.iccid;
    // Downloaded or installed reached a phone; Released after that is 'deleted from the device'.
    return iccid ? { kind: 'smdp_event', ...about(iccid), status: undefined, installed: true, installStep: step } : undefined;
  }
  const alert = Alert.safeParse(value);
  if (alert.success) return fromAlert(alert.data, about(alert.data.iccid));
  const event = EsimEvent.safeParse(value);
  return event.success ? fromEvent(event.data, about(event.data.iccid)) : undefined;
}

type About = Pick<
  Extract<PartnerNotification, { kind: 'data_usage' }>,
  'notifyId' | 'partnerOrderNo' | 'transactionId' | 'esimTranNo' | 'iccid'
>;

function fromAlert(alert: z.output<typeof Alert>, about: About): PartnerNotification | undefined {
  if (!about.iccid) return undefined;
  switch (alert.alertType) {
    // The bundle in use and what is left of it (bytes); the callback says no measuring time.
    case 'Utilisation':
      return {
        kind: 'data_usage',
        ...about,
        usedBytes: Math.max(0, alert.bundle.initialQuantity - alert.bundle.remainingQuantity),
        totalBytes: alert.bundle.initialQuantity,
        measuredAt: null,
      };
    // 'sent the first time an eSIM successfully uses any data': installed, in use, its bundle started.
    case 'FirstUse':
      return { kind: 'esim_status', ...about, status: 'active', installed: true, installStep: 'in_use' };
    default:
      return undefined;
  }
}

function fromEvent(event: z.output<typeof EsimEvent>, about: About): PartnerNotification | undefined {
  if (!about.iccid) return undefined;
  switch (event.event) {
    // 'You have 7 days to apply a new bundle to cancel the deletion': the eSIM ends in 7 days.
    case 'esim.deletion_scheduled':
      return { kind: 'validity', ...about, expiresAt: event.date ? new Date(event.date.getTime() + 7 * DAY_MS) : null, daysLeft: 7 };
    // 'permanently deactivated' (whether it had been installed is not said: the shop reads it back).
    case 'esim.deleted':
      return { kind: 'esim_status', ...about, status: 'cancelled', installed: false, installStep: undefined };
    default:
      return undefined;
  }
}

import type { AlertKind, PushMessage } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import { alertTexts, type AlertFacts } from './messages.ts';

/** What an alert is about, as its links and texts need it. */
export interface AlertSubject {
  /** The eSIM's order: the top-up's `?topUp=` and the notification's tag. */
  orderId: string;
  /** Whether the eSIM's plan can be topped up (view.ts topUpSupported). */
  topUpSupported: boolean;
  facts: AlertFacts;
}

/** The alerts a top-up answers: data running out or used up, the last day. */
const TOP_UP_KINDS: ReadonlySet<AlertKind> = new Set(['data_80', 'data_used_up', 'validity_1_day']);

type Linked = Pick<AlertSubject, 'orderId' | 'topUpSupported'>;

/** The top-up checkout for that eSIM, when a top-up answers the alert and its plan can be topped up. */
export const topUpPath = (kind: AlertKind, subject: Linked, lang: Locale): string | undefined =>
  TOP_UP_KINDS.has(kind) && subject.topUpSupported ? `${localizePath(lang, '/checkout')}?topUp=${subject.orderId}` : undefined;

/** Where an alert leads, in a language (a same-origin path): the top-up checkout, else My eSIMs. */
export const alertPath = (kind: AlertKind, subject: Linked, lang: Locale): string =>
  topUpPath(kind, subject, lang) ?? localizePath(lang, '/my-esim');

/** The push of an alert in a device's language, with the destination named in that language. */
export function pushMessage(kind: AlertKind, subject: AlertSubject, lang: Locale, destinationName: string): PushMessage {
  const { pushTitle, pushBody } = alertTexts({ kind, lang, destinationName, facts: subject.facts });
  return { kind, title: pushTitle, body: pushBody, url: alertPath(kind, subject, lang), tag: `${kind}:${subject.orderId}`, lang };
}

/**
 * How long the push service keeps it for a phone that is off, and how urgently it wakes one: data
 * used up and the last day matter now and for a day; 'ready' and 80 % can wait, and are stale
 * after a few hours.
 */
export function pushDelivery(kind: AlertKind): { ttlSeconds: number; urgency: 'normal' | 'high' } {
  return kind === 'data_used_up' || kind === 'validity_1_day'
    ? { ttlSeconds: 24 * 60 * 60, urgency: 'high' }
    : { ttlSeconds: 6 * 60 * 60, urgency: 'normal' };
}

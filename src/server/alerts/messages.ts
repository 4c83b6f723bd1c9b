import type { AlertKind } from '../../contract/shop-api.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatBytes, usedShare } from '../../lib/data-size.ts';
import { formatDateTime, formatShortDateTime } from '../../lib/format.ts';
import { mailTranslations } from '../mail/translations.ts';

/** What an alert tells about the eSIM, as last read from the partner. */
export interface AlertFacts {
  usedBytes: number;
  totalBytes: number;
  /** ISO time the validity ends, when known. */
  expiresAt: string | null;
}

export interface AlertTextInput {
  kind: AlertKind;
  lang: Locale;
  destinationName: string;
  facts: AlertFacts;
}

export interface AlertTexts {
  subject: string;
  heading: string;
  body: string;
  /** A notification shows about two lines: the title and a short body. */
  pushTitle: string;
  pushBody: string;
  /** The button's words: 'Top up', or for a ready eSIM 'Open My eSIMs'. */
  action: string;
}

// Chinese and Japanese sentences end in their own full stop and need no space between them.
const joinSentences = (lang: Locale, sentences: (string | undefined)[]) =>
  sentences.filter(Boolean).join(lang === 'zh' || lang === 'ja' ? '' : ' ');

/**
 * The words of one alert in the buyer's language (issue 23), for its e-mail and its push: the
 * destination, the data left (formatted as My eSIMs shows it) and until when the plan is valid, in UTC.
 */
export function alertTexts({ kind, lang, destinationName, facts }: AlertTextInput): AlertTexts {
  const { alerts: t } = mailTranslations(lang);
  const share = usedShare(facts.usedBytes, facts.totalBytes);
  const end = facts.expiresAt ? new Date(facts.expiresAt) : undefined;
  const values = {
    destination: destinationName,
    total: formatBytes(facts.totalBytes, lang),
    left: formatBytes(Math.max(0, facts.totalBytes - facts.usedBytes), lang),
    // Floored (79.6 % is not yet '80 %'), past float noise (0.29 * 100 is 28.999…).
    percent: new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 0 }).format(Math.floor(share * 100 + 1e-9) / 100),
  };
  return {
    subject: t(`${kind}.subject`, values),
    heading: t(`${kind}.heading`, values),
    body: joinSentences(lang, [t(`${kind}.body`, values), end && t('endsAt', { until: formatDateTime(end, lang) })]),
    pushTitle: t(`${kind}.pushTitle`, values),
    // Only the last day's push has room for, and need of, the end.
    pushBody: joinSentences(lang, [
      kind === 'validity_1_day' && end ? t('endsAtShort', { until: formatShortDateTime(end, lang) }) : undefined,
      t(`${kind}.pushBody`, values),
    ]),
    action: t(kind === 'esim_ready' || kind === 'connected' || kind === 'not_connected' ? 'action.myEsims' : 'action.topUp'),
  };
}

/** The words around an alert e-mail's links, in the buyer's language. */
export function alertEmailTexts(lang: Locale, siteName: string) {
  const { alerts: t } = mailTranslations(lang);
  return {
    topUp: t('action.topUp'),
    myEsims: t('action.myEsims'),
    reason: t('email.reason', { siteName }),
    manage: t('email.manage'),
    unsubscribe: t('email.unsubscribe'),
  };
}

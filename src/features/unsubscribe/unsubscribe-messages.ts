import { ALERT_DATA_USED_SHARE } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, pickMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

type Unsubscribe = NamespaceMessages<'unsubscribe'>['unsubscribe'];

/** What the unsubscribe island (UnsubscribeAlerts.tsx) says: the page itself shows the title. */
export type UnsubscribeMessages = Pick<Unsubscribe, 'intro' | 'confirm' | 'busy' | 'done' | 'manage' | 'invalid' | 'failed' | 'retry'>;

export function unsubscribeMessages(locale: Locale): UnsubscribeMessages {
  // The data alert's share as the alert e-mail states it, in the language's way ('80%', '80 %').
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(ALERT_DATA_USED_SHARE);
  const { unsubscribe } = namespaceMessages(locale, 'unsubscribe', { percent });
  return pickMessages(unsubscribe, ['intro', 'confirm', 'busy', 'done', 'manage', 'invalid', 'failed', 'retry']);
}

import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, pickMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

type Unsubscribe = NamespaceMessages<'unsubscribe'>['unsubscribe'];

/** What the unsubscribe island (UnsubscribeAlerts.tsx) says: the page itself shows the title. */
export type UnsubscribeMessages = Pick<Unsubscribe, 'intro' | 'confirm' | 'busy' | 'done' | 'manage' | 'invalid' | 'failed' | 'retry'>;

export function unsubscribeMessages(locale: Locale): UnsubscribeMessages {
  const { unsubscribe } = namespaceMessages(locale, 'unsubscribe');
  return pickMessages(unsubscribe, ['intro', 'confirm', 'busy', 'done', 'manage', 'invalid', 'failed', 'retry']);
}

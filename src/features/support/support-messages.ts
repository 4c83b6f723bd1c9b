import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';

/** The support form's texts (help namespace, supportForm): what SupportForm.tsx says. */
export type SupportFormMessages = NamespaceMessages<'help'>['supportForm'];
/** The profile's list of support requests (account namespace, supportRequests). */
export type SupportRequestsMessages = NamespaceMessages<'account'>['supportRequests'];

export const supportFormMessages = (locale: Locale): SupportFormMessages => namespaceMessages(locale, 'help').supportForm;
export const supportRequestsMessages = (locale: Locale): SupportRequestsMessages => namespaceMessages(locale, 'account').supportRequests;

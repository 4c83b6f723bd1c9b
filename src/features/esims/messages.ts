import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';
import { refundFigures } from './refund-figures.ts';

/** The esims namespace (My eSIMs, install codes): what the eSIM islands' builders pick from. */
export type EsimsNamespace = NamespaceMessages<'esims'>;

export function esimsNamespace(locale: Locale): EsimsNamespace {
  return namespaceMessages(locale, 'esims', refundFigures);
}

/** What the install codes (InstallCodes.tsx) say: on My eSIMs and on payment success. */
export type InstallCodesMessages = EsimsNamespace['installCodes'];

import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, pickMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';
import { refundFigures } from './refund-figures.ts';

/** The esims namespace (My eSIMs, install codes): what the eSIM islands' builders pick from. */
export type EsimsNamespace = NamespaceMessages<'esims'>;

export function esimsNamespace(locale: Locale): EsimsNamespace {
  return namespaceMessages(locale, 'esims', refundFigures);
}

/** The connect namespace: each phone's install path and the get-connected checklist (issue 22). */
export type ConnectNamespace = NamespaceMessages<'connect'>;

/** What the install codes (InstallCodes.tsx) say: on My eSIMs and on payment success. */
export type InstallCodesMessages = EsimsNamespace['installCodes'] & { paths: ConnectNamespace['install'] };

/** What the get-connected checklist (ConnectChecklist.tsx) says, with the install codes' copy button texts. */
export type ChecklistMessages = ConnectNamespace['checklist'] & Pick<EsimsNamespace['installCodes'], 'copy' | 'copied' | 'copyFailed'>;

export function installCodesMessages(locale: Locale): InstallCodesMessages {
  return { ...esimsNamespace(locale).installCodes, paths: namespaceMessages(locale, 'connect').install };
}

export function checklistMessages(locale: Locale): ChecklistMessages {
  const { installCodes } = esimsNamespace(locale);
  return { ...namespaceMessages(locale, 'connect').checklist, ...pickMessages(installCodes, ['copy', 'copied', 'copyFailed']) };
}

import { readFileSync } from 'node:fs';
import type { TFunction } from 'i18next';
import { createI18n } from '../../i18n/create-i18n.ts';
import type { NamespaceMessages } from '../../i18n/namespace-messages.ts';
import { LOCALE_CODES, type Locale } from '../../i18n/locales.ts';

/**
 * The e-mails' translations: the 'mail' namespace, 'common' for the plural 'n countries', and
 * 'alerts' for the alert e-mails and pushes (issue 23).
 * The pages find the locale files with Vite's import.meta.glob, which the shop API (plain Node)
 * does not have, so these namespaces are read from disk once, into the pages' i18n set-up.
 */
const NAMESPACES = ['mail', 'common', 'alerts'] as const;

const read = (lang: Locale, ns: string) =>
  JSON.parse(readFileSync(new URL(`../../../locales/${lang}/${ns}.json`, import.meta.url), 'utf8'));

const resources = Object.fromEntries(LOCALE_CODES.map((lang) => [lang, Object.fromEntries(NAMESPACES.map((ns) => [ns, read(lang, ns)]))]));
const instance = createI18n(resources);

export function mailTranslations(lang: Locale) {
  return {
    t: instance.getFixedT(lang, 'mail') as TFunction<'mail'>,
    common: instance.getFixedT(lang, 'common') as TFunction<'common'>,
    alerts: instance.getFixedT(lang, 'alerts') as TFunction<'alerts'>,
  };
}

/** The 'esims' namespace as it is, templates and all: the automatic top-ups' consent is filled as the page fills it (issue 49). */
const esims = Object.fromEntries(LOCALE_CODES.map((lang) => [lang, read(lang, 'esims') as NamespaceMessages<'esims'>]));
export const esimsTemplates = (lang: Locale): NamespaceMessages<'esims'> => esims[lang]!;

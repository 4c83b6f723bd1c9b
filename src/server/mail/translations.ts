import { readFileSync } from 'node:fs';
import i18next, { type TFunction } from 'i18next';
import { DEFAULT_LOCALE, LOCALE_CODES, type Locale } from '../../i18n/locales.ts';

/**
 * The e-mails' translations: the 'mail' namespace, and 'common' for the plural 'n countries'.
 * src/i18n/t.ts finds the locale files with Vite's import.meta.glob, which the shop API (plain
 * Node) does not have, so these two namespaces are read from disk once, with t.ts's settings.
 */
const NAMESPACES = ['mail', 'common'] as const;

const read = (lang: Locale, ns: string) => JSON.parse(readFileSync(new URL(`../../../locales/${lang}/${ns}.json`, import.meta.url), 'utf8'));

const instance = i18next.createInstance();
void instance.init({
  resources: Object.fromEntries(LOCALE_CODES.map((lang) => [lang, Object.fromEntries(NAMESPACES.map((ns) => [ns, read(lang, ns)]))])),
  supportedLngs: [...LOCALE_CODES],
  fallbackLng: DEFAULT_LOCALE,
  ns: [...NAMESPACES],
  defaultNS: 'mail',
  // The HTML part escapes every string it inserts; escaping here would double it in the HTML and garble the text part.
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
});

export function mailTranslations(lang: Locale) {
  return {
    t: instance.getFixedT(lang, 'mail') as TFunction<'mail'>,
    common: instance.getFixedT(lang, 'common') as TFunction<'common'>,
  };
}

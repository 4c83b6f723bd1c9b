import i18next, { type Resource } from 'i18next';
import { DEFAULT_LOCALE, LOCALE_CODES } from './locales.ts';

/**
 * The one i18next set-up, for the pages (t.ts, resources found by Vite's import.meta.glob) and the
 * shop API's e-mails (mail/translations.ts, resources read from disk: plain Node has no glob).
 * Each side brings only its resources. A key missing in a language falls back to English.
 */
export function createI18n(resources: Resource) {
  const instance = i18next.createInstance();
  void instance.init({
    resources,
    supportedLngs: [...LOCALE_CODES],
    fallbackLng: DEFAULT_LOCALE,
    ns: Object.keys(resources[DEFAULT_LOCALE] ?? {}),
    defaultNS: 'common',
    // Whatever renders the strings escapes them (Astro, React, the e-mails' HTML); escaping here would
    // double it there, and garble the e-mails' plain-text part.
    interpolation: { escapeValue: false },
    initAsync: false,
    returnNull: false,
  });
  return instance;
}

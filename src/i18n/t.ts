import type { CustomTypeOptions, Resource, TFunction } from 'i18next';
import { createI18n } from './create-i18n.ts';
import type { Locale } from './locales.ts';

/**
 * The one translation function. Resources are the JSON files in locales/<lang>/<namespace>.json
 * (English is the source of truth); a key missing in a language falls back to English.
 */
const files = import.meta.glob<Record<string, unknown>>('../../locales/*/*.json', {
  eager: true,
  import: 'default',
});

export const resources: Resource = {};
for (const [file, content] of Object.entries(files)) {
  const [, lang, ns] = file.match(/locales\/([^/]+)\/([^/]+)\.json$/)!;
  (resources[lang!] ??= {})[ns!] = content as Resource[string][string];
}

const instance = createI18n(resources);

export type Namespace = keyof CustomTypeOptions['resources'];
export type T<N extends Namespace = 'common'> = TFunction<N>;

/**
 * A `t()` bound to one language (and namespace: 'common' unless a page's long-form content
 * lives in its own file), for .astro files and for building island props.
 */
export function useTranslations<N extends Namespace = 'common'>(locale: Locale, namespace?: N): T<N> {
  return instance.getFixedT(locale, namespace ?? 'common') as T<N>;
}

export type MessageKey = Parameters<T>[0] & string;

/**
 * The one way to hand translations to a React island: resolve the keys it needs on the server
 * and pass the strings as a prop, so islands ship no i18next and no other language.
 */
export function islandMessages<K extends MessageKey>(locale: Locale, keys: readonly K[]): Record<K, string> {
  const t = useTranslations(locale);
  return Object.fromEntries(keys.map((key) => [key, String(t(key as never))])) as Record<K, string>;
}

/**
 * Every plural form the language needs of a counted message ('store.countriesCount'), with
 * {{count}} left in: for a script that picks one in the browser with Intl.PluralRules and fill().
 */
export function pluralForms(locale: Locale, key: string): Record<string, string> {
  const t = useTranslations(locale) as unknown as (key: string) => string;
  return Object.fromEntries(
    new Intl.PluralRules(locale).resolvedOptions().pluralCategories.map((category) => [category, t(`${key}_${category}`)]),
  );
}

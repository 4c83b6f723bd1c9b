import type { CustomTypeOptions } from 'i18next';
import { DEFAULT_LOCALE, type Locale } from './locales.ts';
import { resources, useTranslations, type Namespace } from './t.ts';

/** A namespace's messages as the English source shapes them (every language has that shape: the translation check). */
export type NamespaceMessages<N extends Namespace> = CustomTypeOptions['resources'][N];

/**
 * A whole namespace resolved in one language on the server (English where a key is missing),
 * with `values` filled in: what the islands' message builders pick their island's strings from,
 * so an island ships only those and no i18next.
 */
export function namespaceMessages<N extends Namespace>(
  locale: Locale,
  namespace: N,
  values: Record<string, unknown> = {},
): NamespaceMessages<N> {
  const t = useTranslations(locale, namespace) as unknown as (key: string, options: object) => unknown;
  const sections = Object.keys(resources[DEFAULT_LOCALE]?.[namespace] ?? {});
  return Object.fromEntries(sections.map((key) => [key, t(key, { returnObjects: true, ...values })])) as NamespaceMessages<N>;
}

/** The named keys of a section of messages, and only those. */
export function pickMessages<T extends object, K extends keyof T>(messages: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, messages[key]])) as Pick<T, K>;
}

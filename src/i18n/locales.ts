/** The twelve interface languages of spec 1, in the picker's order (ogLocale: Open Graph's language_TERRITORY form). */
export const LOCALES = [
  { code: 'en', ogLocale: 'en_US', name: 'English', nativeName: 'English', dir: 'ltr' },
  { code: 'es', ogLocale: 'es_ES', name: 'Spanish', nativeName: 'Español', dir: 'ltr' },
  { code: 'fr', ogLocale: 'fr_FR', name: 'French', nativeName: 'Français', dir: 'ltr' },
  { code: 'de', ogLocale: 'de_DE', name: 'German', nativeName: 'Deutsch', dir: 'ltr' },
  { code: 'ar', ogLocale: 'ar_AR', name: 'Arabic', nativeName: 'العربية', dir: 'rtl' },
  { code: 'it', ogLocale: 'it_IT', name: 'Italian', nativeName: 'Italiano', dir: 'ltr' },
  { code: 'nl', ogLocale: 'nl_NL', name: 'Dutch', nativeName: 'Nederlands', dir: 'ltr' },
  { code: 'pl', ogLocale: 'pl_PL', name: 'Polish', nativeName: 'Polski', dir: 'ltr' },
  { code: 'zh', ogLocale: 'zh_CN', name: 'Chinese', nativeName: '中文', dir: 'ltr' },
  { code: 'ja', ogLocale: 'ja_JP', name: 'Japanese', nativeName: '日本語', dir: 'ltr' },
  { code: 'pt', ogLocale: 'pt_PT', name: 'Portuguese', nativeName: 'Português', dir: 'ltr' },
  { code: 'ru', ogLocale: 'ru_RU', name: 'Russian', nativeName: 'Русский', dir: 'ltr' },
] as const;

export type Locale = (typeof LOCALES)[number]['code'];
export type LocaleInfo = (typeof LOCALES)[number];

/** English lives at the unprefixed routes and is the translation fallback (DESIGN 2). */
export const DEFAULT_LOCALE = 'en' satisfies Locale;

export const LOCALE_CODES: readonly Locale[] = LOCALES.map((l) => l.code);

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALE_CODES as readonly string[]).includes(value);
}

export function localeInfo(locale: Locale): LocaleInfo {
  return LOCALES.find((l) => l.code === locale)!;
}

/** The locale of a browser language tag, matched on the language only ('pt-BR' -> 'pt'). */
export function matchLocale(tag: string | null | undefined): Locale | undefined {
  const language = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return isLocale(language) ? language : undefined;
}

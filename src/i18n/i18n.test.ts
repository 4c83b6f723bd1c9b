import { describe, expect, it } from 'vitest';
import { LOCALES, LOCALE_CODES, matchLocale } from './locales.ts';
import { canonicalPath, localeStaticPaths, localizePath, splitLocale } from './paths.ts';
import { alternatesFor } from './hreflang.ts';
import { detectLocale } from './detect.ts';
import { createI18n } from './create-i18n.ts';
import { islandMessages, pluralForms, useTranslations } from './t.ts';
import { fillPlural } from './fill.ts';
import { namespaceMessages, pickMessages } from './namespace-messages.ts';
import en from '../../locales/en/common.json';
import ar from '../../locales/ar/common.json';
import deAuth from '../../locales/de/auth.json';

describe('locale table', () => {
  it('has the twelve languages of the spec, each with names and a direction', () => {
    expect(LOCALE_CODES).toEqual(['en', 'es', 'fr', 'de', 'ar', 'it', 'nl', 'pl', 'zh', 'ja', 'pt', 'ru']);
    for (const l of LOCALES) {
      expect(l.name).toMatch(/^[A-Z]/);
      expect(l.nativeName.length).toBeGreaterThan(1);
    }
    expect(LOCALES.filter((l) => l.dir === 'rtl').map((l) => l.code)).toEqual(['ar']);
  });

  it('matches browser language tags on the language only', () => {
    expect(matchLocale('pt-BR')).toBe('pt');
    expect(matchLocale('zh_Hant_TW')).toBe('zh');
    expect(matchLocale('DE')).toBe('de');
    expect(matchLocale('ko-KR')).toBeUndefined();
    expect(matchLocale('')).toBeUndefined();
  });
});

describe('localized paths', () => {
  it('keeps English at the spec routes and prefixes the other languages', () => {
    expect(localizePath('en', '/')).toBe('/');
    expect(localizePath('en', '/store')).toBe('/store');
    expect(localizePath('de', '/')).toBe('/de/');
    expect(localizePath('ar', '/package/de')).toBe('/ar/package/de');
  });

  it('splits a pathname back into language and route', () => {
    expect(splitLocale('/fr/store')).toEqual({ locale: 'fr', route: '/store' });
    expect(splitLocale('/fr/')).toEqual({ locale: 'fr', route: '/' });
    expect(splitLocale('/fr')).toEqual({ locale: 'fr', route: '/' });
    expect(splitLocale('/store')).toEqual({ locale: 'en', route: '/store' });
    // '/de' as a country code under /package is a route, not a language.
    expect(splitLocale('/package/de')).toEqual({ locale: 'en', route: '/package/de' });
    // English has no prefix: '/en/x' is an unknown English path, not a language switch.
    expect(splitLocale('/en/store')).toEqual({ locale: 'en', route: '/en/store' });
  });

  it('round-trips every language and route', () => {
    for (const locale of LOCALE_CODES) {
      for (const route of ['/', '/store', '/package/fr']) {
        expect(splitLocale(localizePath(locale, route))).toEqual({ locale, route });
      }
    }
  });

  it('gives one canonical form for each page', () => {
    expect(canonicalPath('/de')).toBe('/de/');
    expect(canonicalPath('/de/index.html')).toBe('/de/');
    expect(canonicalPath('/store.html')).toBe('/store');
    expect(canonicalPath('/ja/store/')).toBe('/ja/store');
  });

  it('builds one static path per language, English without a prefix', () => {
    const paths = localeStaticPaths();
    expect(paths).toHaveLength(12);
    expect(paths[0]).toEqual({ params: { lang: undefined }, props: { locale: 'en' } });
    expect(paths.map((p) => p.params.lang).filter(Boolean)).toHaveLength(11);
  });
});

describe('hreflang alternates', () => {
  it('lists all twelve languages plus x-default as absolute URLs', () => {
    const alternates = alternatesFor('https://shop.example', '/store');
    expect(alternates).toHaveLength(13);
    expect(alternates.map((a) => a.hreflang)).toEqual([...LOCALE_CODES, 'x-default']);
    expect(alternates.find((a) => a.hreflang === 'ja')?.href).toBe('https://shop.example/ja/store');
    expect(alternates.find((a) => a.hreflang === 'x-default')?.href).toBe('https://shop.example/store');
    expect(alternatesFor('https://shop.example', '/').find((a) => a.hreflang === 'ar')?.href).toBe('https://shop.example/ar/');
  });
});

describe('language auto-detection (DESIGN 2)', () => {
  it('prefers the language the visitor picked, whatever the browser says', () => {
    expect(detectLocale('fr', ['ja-JP', 'en'])).toBe('fr');
    expect(detectLocale('ru', [])).toBe('ru');
  });

  it('stays in English when the visitor picked English', () => {
    expect(detectLocale('en', ['de-DE'])).toBeUndefined();
  });

  it('otherwise takes the first browser language that we offer', () => {
    expect(detectLocale(undefined, ['ko-KR', 'ja-JP', 'de'])).toBe('ja');
    expect(detectLocale(undefined, ['pt-BR'])).toBe('pt');
  });

  it('stays in English when no browser language is ours, never forcing German', () => {
    expect(detectLocale(undefined, ['ko-KR', 'tr'])).toBeUndefined();
    expect(detectLocale(undefined, [])).toBeUndefined();
    expect(detectLocale(undefined, ['en-GB', 'de'])).toBeUndefined();
  });
});

describe('t()', () => {
  it('translates per language', () => {
    expect(useTranslations('en')('notFound.title')).toBe(en.notFound.title);
    expect(useTranslations('ar')('notFound.title')).toBe(ar.notFound.title);
  });

  it('interpolates values', () => {
    expect(useTranslations('de')('home.intro', { countries: 200 })).toContain('200');
  });

  it('falls back to English for a key missing in a language', () => {
    const i18n = createI18n({ en: { common: { a: 'Apple', b: 'Banana' } }, de: { common: { a: 'Apfel' } } });
    const t = i18n.getFixedT('de', 'common') as unknown as (key: string) => string;
    expect(t('a')).toBe('Apfel');
    expect(t('b')).toBe('Banana');
  });

  it('hands a script every plural form the language needs, {{count}} left to fill', () => {
    for (const locale of ['en', 'ar', 'pl', 'ja'] as const) {
      const forms = pluralForms(locale, 'store.countriesCount');
      const rules = new Intl.PluralRules(locale);
      expect(Object.keys(forms).sort()).toEqual([...rules.resolvedOptions().pluralCategories].sort());
      const t = useTranslations(locale);
      for (const count of [0, 1, 2, 3, 5, 11, 22, 100]) {
        expect(fillPlural(forms, locale, count)).toBe(t('store.countriesCount', { count }));
      }
    }
  });

  it('hands an island exactly the strings it asks for, in its language', () => {
    expect(islandMessages('ja', ['nav.home', 'nav.store'])).toEqual({
      'nav.home': 'ホーム',
      'nav.store': 'ストア',
    });
  });
});

describe('island messages', () => {
  it('resolves a whole namespace in a language on the server, with values filled in', () => {
    const auth = namespaceMessages('de', 'auth', { min: 8 });
    expect(auth.login.submit).toBe(deAuth.login.submit);
    expect(auth.validation.passwordTooShort).toBe(deAuth.validation.passwordTooShort.replace('{{min}}', '8'));
  });

  it('picks exactly the keys an island reads', () => {
    expect(pickMessages({ a: 'A', b: 'B', c: 'C' }, ['a', 'c'])).toEqual({ a: 'A', c: 'C' });
  });
});

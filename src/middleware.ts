import { defineMiddleware } from 'astro:middleware';
import { localizePath, splitLocale } from './i18n/paths.ts';
import { useTranslations, type Namespace } from './i18n/t.ts';

/**
 * The page's language and locale-neutral route, read once from its URL (at build time for the
 * static pages), so pages, layouts and components take them from Astro.locals instead of props.
 */
export const onRequest = defineMiddleware((context, next) => {
  const { locale, route } = splitLocale(context.url.pathname);
  Object.assign(context.locals, {
    locale,
    route,
    t: useTranslations(locale),
    translations: <N extends Namespace>(namespace: N) => useTranslations(locale, namespace),
    localizePath: (path: string) => localizePath(locale, path),
  } satisfies App.Locals);
  return next();
});

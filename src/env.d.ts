/** What src/middleware.ts puts on Astro.locals for every page. */
declare namespace App {
  interface Locals {
    /** The page's language, from its URL. */
    locale: import('./i18n/locales.ts').Locale;
    /** Locale-neutral route of the page, e.g. '/store' or '/package/fr'. */
    route: string;
    /** t() of the 'common' namespace in the page's language. */
    t: import('./i18n/t.ts').T;
    /** t() of another namespace in the page's language. */
    translations: <N extends import('./i18n/t.ts').Namespace>(namespace: N) => import('./i18n/t.ts').T<N>;
    /** A locale-neutral route ('/store') as a path in the page's language. */
    localizePath: (path: string) => string;
  }
}

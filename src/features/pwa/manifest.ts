import { COVERAGE_CLAIM_COUNTRIES } from '../../config/constants.ts';
import { BRAND_COLOR, SITE_NAME } from '../../config/site.ts';
import { localeInfo, type Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import { useTranslations } from '../../i18n/t.ts';
import { APP_ICON_192, APP_ICON_512, APP_ICON_MASKABLE } from './app-icons.ts';

/**
 * The web app manifest of one language: installing from a German page opens the German home.
 * All languages share one `id`, so the installed app is the same app whatever language it came from.
 */
export function webAppManifest(locale: Locale) {
  const t = useTranslations(locale);
  const { dir } = localeInfo(locale);
  return {
    id: '/',
    name: SITE_NAME,
    short_name: 'eSIM',
    description: t('home.description', { countries: COVERAGE_CLAIM_COUNTRIES }),
    lang: locale,
    dir,
    start_url: localizePath(locale, '/'),
    scope: '/',
    display: 'standalone',
    orientation: 'portrait',
    theme_color: BRAND_COLOR,
    background_color: '#ffffff',
    categories: ['travel', 'shopping'],
    icons: [
      { src: APP_ICON_192, sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: APP_ICON_512, sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: APP_ICON_MASKABLE, sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
    shortcuts: [
      { name: t('nav.store'), url: localizePath(locale, '/store') },
      { name: t('nav.support'), url: localizePath(locale, '/support') },
    ],
  };
}

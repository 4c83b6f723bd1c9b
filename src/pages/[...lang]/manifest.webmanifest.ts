import type { APIRoute } from 'astro';
import { webAppManifest } from '../../features/pwa/manifest.ts';
import type { Locale } from '../../i18n/locales.ts';
import { localeStaticPaths } from '../../i18n/paths.ts';

export const getStaticPaths = localeStaticPaths;

export const GET: APIRoute<{ locale: Locale }> = ({ props }) =>
  new Response(JSON.stringify(webAppManifest(props.locale), null, 2), {
    headers: { 'Content-Type': 'application/manifest+json' },
  });

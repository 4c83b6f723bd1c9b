import { CATALOGUE_API_URL } from 'astro:env/server';
import { loadCatalogue, type Catalogue } from './loader.ts';

let cached: Promise<Catalogue> | undefined;
/**
 * The build's catalogue, loaded once per build from CATALOGUE_API_URL (declared in astro.config.mjs's
 * env.schema) or the snapshot. Apart from loader.ts, which tests and scripts use without Astro.
 */
export function buildCatalogue(): Promise<Catalogue> {
  cached ??= loadCatalogue({ apiUrl: CATALOGUE_API_URL?.trim() || undefined });
  return cached;
}

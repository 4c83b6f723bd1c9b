/** The legal pages: the route of each and the document of locales/<lang>/legal.json it shows. */
export const LEGAL_PAGES = [
  { slug: 'terms-conditions', document: 'terms' },
  { slug: 'privacy-policy', document: 'privacy' },
  { slug: 'legal-notice', document: 'imprint' },
] as const;

export type LegalDocument = (typeof LEGAL_PAGES)[number]['document'];

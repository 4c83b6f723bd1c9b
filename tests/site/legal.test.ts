import { describe, expect, it } from 'vitest';
import { LOCALE_CODES } from '../../src/i18n/locales.ts';
import { localizePath } from '../../src/i18n/paths.ts';
import { builtPages } from '../support/dist.ts';

/**
 * What the legal texts must say about buying (issue 14), checked in every language by markers
 * that no translation changes: the payment processor's name and the laws cited.
 */
const byPath = new Map(builtPages().map((p) => [p.path, p]));
const article = (locale: (typeof LOCALE_CODES)[number], route: string) => {
  const page = byPath.get(localizePath(locale, route));
  if (!page) throw new Error(`${localizePath(locale, route)} was not built`);
  return page.doc.querySelector('article')!.text;
};

describe('legal texts about payment and orders', () => {
  it.each(LOCALE_CODES)('%s: the privacy policy names Stripe and the ten-year tax retention of orders', (locale) => {
    const text = article(locale, '/privacy-policy');
    expect(text).toContain('Stripe Payments Europe, Ltd.');
    // The laws behind keeping paid orders after an account is deleted.
    expect(text).toContain('§ 147');
    expect(text).toContain('§ 14b');
  });

  it.each(LOCALE_CODES)('%s: the terms name Stripe and the consent that ends the right of withdrawal', (locale) => {
    const text = article(locale, '/terms-conditions');
    expect(text).toContain('Stripe Payments Europe, Ltd.');
    expect(text).toContain('§ 356');
  });
});

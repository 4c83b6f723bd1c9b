import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCALE_CODES } from '../../i18n/locales.ts';

/**
 * The checkout's legal duties in every language's texts, checked by what reads the same in all
 * of them: the payment processor's name, the German laws cited, and the checkout button's own label.
 */
interface LegalDocument {
  sections: { heading: string; paragraphs: string[] }[];
}
const read = (locale: string, namespace: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../../locales', locale, `${namespace}.json`), 'utf8'));
const body = (document: LegalDocument) => document.sections.flatMap((section) => [section.heading, ...section.paragraphs]).join('\n');

describe.each(LOCALE_CODES)('legal texts in %s', (locale) => {
  const legal = read(locale, 'legal') as { privacy: LegalDocument; terms: LegalDocument };
  const buyNow = (read(locale, 'checkout') as { checkout: { buyNow: string } }).checkout.buyNow;
  const privacy = body(legal.privacy);
  const terms = body(legal.terms);

  it('the privacy policy names Stripe as payment processor and the tax laws that keep paid orders ten years', () => {
    expect(privacy).toContain('Stripe Payments Europe, Ltd.');
    expect(privacy).toContain('§ 147 AO');
    expect(privacy).toContain('§ 14b UStG');
  });

  it('the terms say which button makes the binding offer, payment through Stripe and the consent of § 356(5) BGB', () => {
    expect(terms).toContain(buyNow);
    expect(terms).toContain('Stripe Payments Europe, Ltd.');
    expect(terms).toContain('§ 356');
    expect(terms).toContain('BGB');
  });
});

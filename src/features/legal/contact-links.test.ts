import { describe, expect, it } from 'vitest';
import { phoneHref } from '../../config/provider.ts';
import { linkContacts } from './contact-links.ts';

const links = [
  { text: 'help@shop.test', href: 'mailto:help@shop.test' },
  { text: '+49 30 1234567', href: 'tel:+49301234567' },
];

describe('contact details in the legal texts', () => {
  it('turns each e-mail address and phone number into a link, keeping the text around them', () => {
    expect(linkContacts('Mail help@shop.test or call +49 30 1234567.', links)).toEqual([
      { text: 'Mail ' },
      links[0],
      { text: ' or call ' },
      links[1],
      { text: '.' },
    ]);
  });

  it('links the details wherever they stand, in any order and more than once', () => {
    const segments = linkContacts('+49 30 1234567, help@shop.test, help@shop.test', links);
    expect(segments.filter((s) => s.href).map((s) => s.href)).toEqual([
      'tel:+49301234567',
      'mailto:help@shop.test',
      'mailto:help@shop.test',
    ]);
    expect(segments.map((s) => s.text).join('')).toBe('+49 30 1234567, help@shop.test, help@shop.test');
  });

  it('leaves a paragraph without contact details as it is', () => {
    expect(linkContacts('Nothing to link here.', links)).toEqual([{ text: 'Nothing to link here.' }]);
  });

  it('dials only a real number in international form, never a placeholder', () => {
    expect(phoneHref('+49 (30) 123-4567')).toBe('tel:+49301234567');
    expect(phoneHref('[Phone number]')).toBeUndefined();
    expect(phoneHref('030 1234567')).toBeUndefined();
  });
});

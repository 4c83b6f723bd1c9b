/**
 * The provider's details, shown on the support, legal-notice and terms pages.
 * PLACEHOLDERS: the real sole proprietor's name and address are withheld (spec 2);
 * replace them here, and only here, before going live. No invented person's data.
 */
export const PROVIDER = {
  name: '[Provider name]',
  streetAddress: '[Street and number]',
  postalCode: '[Postal code]',
  city: 'Berlin',
  supportEmail: 'support@esim.example.com',
  /**
   * The imprint's second fast way to reach us besides e-mail (German law, § 5 DDG, as the CJEU
   * reads it): a telephone number in international form, '+49 30 1234567'. PLACEHOLDER.
   */
  phone: '[Phone number]',
  vatId: '[VAT identification number]',
} as const;

/** `tel:` link of the phone number; none while the number is a placeholder. */
export function phoneHref(phone: string): string | undefined {
  return /^\+[\d\s()/-]{6,}$/.test(phone) ? `tel:${phone.replace(/[^\d+]/g, '')}` : undefined;
}

/** The postal address on one line, as the legal texts print it. */
export const PROVIDER_ADDRESS = `${PROVIDER.streetAddress}, ${PROVIDER.postalCode} ${PROVIDER.city}, Germany`;

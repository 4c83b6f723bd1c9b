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
  vatId: '[VAT identification number]',
} as const;

/** The postal address on one line, as the legal texts print it. */
export const PROVIDER_ADDRESS = `${PROVIDER.streetAddress}, ${PROVIDER.postalCode} ${PROVIDER.city}, Germany`;

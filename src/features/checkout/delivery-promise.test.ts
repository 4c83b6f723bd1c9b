import { describe, expect, it } from 'vitest';
import { DELIVERY_PROMISE_MS } from '../../config/constants.ts';
import { LOCALE_CODES } from '../../i18n/locales.ts';
import { deliveryPromiseText } from './messages.ts';

// The checkout and payment pages promise a refund when an eSIM is late (issue 32 item 3): the time
// they say is the one the fulfilment keeps, in every language.
describe('the delivery promise the pages state', () => {
  const minutes = DELIVERY_PROMISE_MS / 60_000;

  it.each(LOCALE_CODES)('names the promised minutes in %s, in its own words', (locale) => {
    const text = deliveryPromiseText(locale);
    expect(text).toContain(String(minutes));
    expect(text).not.toContain('{{');
    if (locale !== 'en') expect(text).not.toBe(deliveryPromiseText('en'));
  });

  it('uses the plural form of the count', () => {
    expect(deliveryPromiseText('en')).toContain(`${minutes} minutes`);
    expect(deliveryPromiseText('de')).toContain(`${minutes} Minuten`);
    expect(deliveryPromiseText('pl')).toContain(`${minutes} minut `);
  });
});

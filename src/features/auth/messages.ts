import type auth from '../../../locales/en/auth.json';
import { MIN_PASSWORD_LENGTH } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import { islandSections } from '../../i18n/t.ts';

/** The auth namespace as the islands receive it: every string resolved in the page's language. */
export type AuthMessages = typeof auth;

export function authMessages(locale: Locale): AuthMessages {
  return islandSections(locale, 'auth', Object.keys(AUTH_SECTIONS) as (keyof AuthMessages)[], {
    min: MIN_PASSWORD_LENGTH,
  }) as unknown as AuthMessages;
}
const AUTH_SECTIONS: Record<keyof AuthMessages, true> = {
  login: true, signup: true, fields: true, or: true, google: true, apple: true, reset: true, validation: true,
  errors: true, guard: true, profile: true, checkout: true, paymentSuccess: true, myEsim: true, history: true, installCodes: true,
};

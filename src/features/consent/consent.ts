import { COOKIE_CONSENT_VALUES, STORAGE_KEYS } from '../../config/constants.ts';

export type CookieConsent = (typeof COOKIE_CONSENT_VALUES)[number];

/** The visitor's stored answer, or undefined while they have not answered (or storage is blocked). */
export function storedConsent(): CookieConsent | undefined {
  try {
    const value = localStorage.getItem(STORAGE_KEYS.cookieConsent);
    return COOKIE_CONSENT_VALUES.find((answer) => answer === value);
  } catch {
    return undefined;
  }
}

export function storeConsent(answer: CookieConsent): void {
  try {
    localStorage.setItem(STORAGE_KEYS.cookieConsent, answer);
  } catch {
    // Storage blocked (private mode): the banner still closes for this page.
  }
}

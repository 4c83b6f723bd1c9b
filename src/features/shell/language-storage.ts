import { STORAGE_KEYS } from '../../config/constants.ts';
import { isLocale, type Locale } from '../../i18n/locales.ts';

/** Saves the language a visitor picked and the 'user picked' flag (spec 3). */
export function rememberPickedLocale(locale: Locale): void {
  try {
    localStorage.setItem(STORAGE_KEYS.language, locale);
    localStorage.setItem(STORAGE_KEYS.languageUserPicked, 'true');
  } catch {
    // Storage can be disabled (private mode); the link still switches the language.
  }
}

/** The language the visitor picked earlier, if they picked one. */
export function pickedLocale(): Locale | undefined {
  try {
    if (localStorage.getItem(STORAGE_KEYS.languageUserPicked) !== 'true') return undefined;
    const saved = localStorage.getItem(STORAGE_KEYS.language);
    return isLocale(saved) ? saved : undefined;
  } catch {
    return undefined;
  }
}

import { PUBLIC_FIREBASE_AUTH_EMULATOR_URL } from 'astro:env/client';
import { initializeApp } from 'firebase/app';
import {
  browserLocalPersistence,
  browserPopupRedirectResolver,
  indexedDBLocalPersistence,
  connectAuthEmulator,
  initializeAuth,
  type Auth,
} from 'firebase/auth';
import { SIGN_IN_ROUTES } from '../../config/site.ts';
import { splitLocale } from '../../i18n/paths.ts';
import { FIREBASE_CONFIG, USES_EMULATOR } from './firebase-config.ts';

export { USES_EMULATOR } from './firebase-config.ts';

/**
 * Google's popup helper (a script from apis.google.com and a frame from the auth domain, loaded
 * up front on phones so the popup opens within the tap) only where the Content-Security-Policy
 * allows it: the pages that sign in (scripts/lib/csp.ts). The other account pages only read the session.
 */
const signsIn = () => SIGN_IN_ROUTES.includes(splitLocale(window.location.pathname).route);

let auth: Auth | undefined;
/** Firebase Authentication, created on first use so that only pages with accounts load it (its project: firebase-config.ts). */
export function firebaseAuth(): Auth {
  if (!auth) {
    auth = initializeAuth(initializeApp(FIREBASE_CONFIG), {
      // IndexedDB first (Firebase's own default order): a browser that blocks local storage
      // keeps the visitor signed in from page to page all the same.
      persistence: [indexedDBLocalPersistence, browserLocalPersistence],
      ...(signsIn() && { popupRedirectResolver: browserPopupRedirectResolver }),
    });
    auth.languageCode = document.documentElement.lang;
    if (USES_EMULATOR) connectAuthEmulator(auth, PUBLIC_FIREBASE_AUTH_EMULATOR_URL, { disableWarnings: true });
  }
  return auth;
}

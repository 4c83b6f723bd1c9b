import {
  PUBLIC_FIREBASE_API_KEY,
  PUBLIC_FIREBASE_APP_ID,
  PUBLIC_FIREBASE_AUTH_DOMAIN,
  PUBLIC_FIREBASE_AUTH_EMULATOR_URL,
  PUBLIC_FIREBASE_PROJECT_ID,
} from 'astro:env/client';
import { initializeApp, type FirebaseOptions } from 'firebase/app';
import {
  browserLocalPersistence,
  browserPopupRedirectResolver,
  indexedDBLocalPersistence,
  connectAuthEmulator,
  initializeAuth,
  type Auth,
} from 'firebase/auth';
import { DEMO_FIREBASE_CONFIG } from '../../config/env.ts';
import { SIGN_IN_ROUTES } from '../../config/site.ts';
import { splitLocale } from '../../i18n/paths.ts';

/**
 * Firebase Authentication, created on first use so that only pages with accounts load it.
 * Production configuration comes from PUBLIC_FIREBASE_* variables (public by design; the
 * build refuses a partial one, src/config/env.ts); without them the site talks to the Auth
 * emulator of the demo project.
 */
export const USES_EMULATOR = !PUBLIC_FIREBASE_API_KEY;

const config: FirebaseOptions = USES_EMULATOR
  ? DEMO_FIREBASE_CONFIG
  : // The build stops unless all four are set (checkBuildEnv).
    ({
      apiKey: PUBLIC_FIREBASE_API_KEY,
      authDomain: PUBLIC_FIREBASE_AUTH_DOMAIN,
      projectId: PUBLIC_FIREBASE_PROJECT_ID,
      appId: PUBLIC_FIREBASE_APP_ID,
    } as FirebaseOptions);

/**
 * Google's popup helper (a script from apis.google.com and a frame from the auth domain, loaded
 * up front on phones so the popup opens within the tap) only where the Content-Security-Policy
 * allows it: the pages that sign in (scripts/lib/csp.ts). The other account pages only read the session.
 */
const signsIn = () => SIGN_IN_ROUTES.includes(splitLocale(window.location.pathname).route);

let auth: Auth | undefined;
export function firebaseAuth(): Auth {
  if (!auth) {
    auth = initializeAuth(initializeApp(config), {
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

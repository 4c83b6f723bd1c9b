import { initializeApp } from 'firebase/app';
import {
  browserLocalPersistence,
  browserPopupRedirectResolver,
  indexedDBLocalPersistence,
  connectAuthEmulator,
  initializeAuth,
  type Auth,
} from 'firebase/auth';

/**
 * Firebase Authentication, created on first use so that only pages with accounts load it.
 * Production configuration comes from PUBLIC_FIREBASE_* variables (public by design);
 * without them the site talks to the Auth emulator of the demo project.
 */
const env = import.meta.env;
export const USES_EMULATOR = !env.PUBLIC_FIREBASE_API_KEY;
const EMULATOR_URL = env.PUBLIC_FIREBASE_AUTH_EMULATOR_URL || 'http://127.0.0.1:9099';

const config = USES_EMULATOR
  ? { apiKey: 'demo-key', authDomain: 'demo-esim.firebaseapp.com', projectId: 'demo-esim' }
  : {
      apiKey: env.PUBLIC_FIREBASE_API_KEY,
      authDomain: env.PUBLIC_FIREBASE_AUTH_DOMAIN,
      projectId: env.PUBLIC_FIREBASE_PROJECT_ID,
      appId: env.PUBLIC_FIREBASE_APP_ID,
    };

let auth: Auth | undefined;
export function firebaseAuth(): Auth {
  if (!auth) {
    auth = initializeAuth(initializeApp(config), {
      // IndexedDB first (Firebase's own default order): a browser that blocks local storage
      // keeps the visitor signed in from page to page all the same.
      persistence: [indexedDBLocalPersistence, browserLocalPersistence],
      popupRedirectResolver: browserPopupRedirectResolver,
    });
    auth.languageCode = document.documentElement.lang;
    if (USES_EMULATOR) connectAuthEmulator(auth, EMULATOR_URL, { disableWarnings: true });
  }
  return auth;
}

/** Firebase error codes (spec 8) mapped to our translated messages (auth.json `errors`). */
export const AUTH_ERROR_KEYS = [
  'invalidCredential',
  'emailInUse',
  'weakPassword',
  'invalidEmail',
  'tooManyRequests',
  'userDisabled',
  'network',
  'popupClosed',
  'popupBlocked',
  'unauthorizedDomain',
  'requiresRecentLogin',
] as const;
export type AuthErrorKey = (typeof AUTH_ERROR_KEYS)[number];

const BY_CODE: Record<string, AuthErrorKey> = {
  // Production answers invalid-credential for both (e-mail enumeration protection); the emulator the older two.
  'auth/invalid-credential': 'invalidCredential',
  'auth/invalid-login-credentials': 'invalidCredential',
  'auth/wrong-password': 'invalidCredential',
  'auth/user-not-found': 'invalidCredential',
  'auth/email-already-in-use': 'emailInUse',
  'auth/weak-password': 'weakPassword',
  'auth/password-does-not-meet-requirements': 'weakPassword',
  'auth/invalid-email': 'invalidEmail',
  'auth/missing-email': 'invalidEmail',
  'auth/too-many-requests': 'tooManyRequests',
  'auth/user-disabled': 'userDisabled',
  'auth/network-request-failed': 'network',
  'auth/popup-closed-by-user': 'popupClosed',
  'auth/cancelled-popup-request': 'popupClosed',
  'auth/popup-blocked': 'popupBlocked',
  'auth/unauthorized-domain': 'unauthorizedDomain',
  'auth/requires-recent-login': 'requiresRecentLogin',
};

/** The message key for an error, or undefined for an unknown one (the caller's fallback applies). */
export function authErrorKey(error: unknown): AuthErrorKey | undefined {
  const code = typeof error === 'object' && error && 'code' in error ? String(error.code) : '';
  return BY_CODE[code];
}

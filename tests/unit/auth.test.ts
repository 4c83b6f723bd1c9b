import { describe, expect, it } from 'vitest';
import { authErrorKey } from '../../src/features/auth/errors.ts';
import { loginUrl, safeNext } from '../../src/features/auth/redirect.ts';
import { validateEmail, validateNewPassword } from '../../src/features/auth/validation.ts';
import { fill } from '../../src/i18n/fill.ts';
import en from '../../locales/en/auth.json';

describe('Firebase error codes (spec 8)', () => {
  it.each([
    ['auth/wrong-password', 'invalidCredential'],
    ['auth/user-not-found', 'invalidCredential'],
    ['auth/invalid-credential', 'invalidCredential'],
    ['auth/email-already-in-use', 'emailInUse'],
    ['auth/weak-password', 'weakPassword'],
    ['auth/invalid-email', 'invalidEmail'],
    ['auth/too-many-requests', 'tooManyRequests'],
    ['auth/user-disabled', 'userDisabled'],
    ['auth/network-request-failed', 'network'],
    ['auth/popup-closed-by-user', 'popupClosed'],
    ['auth/popup-blocked', 'popupBlocked'],
    ['auth/unauthorized-domain', 'unauthorizedDomain'],
    ['auth/requires-recent-login', 'requiresRecentLogin'],
  ])('%s shows the translated message %s', (code, key) => {
    expect(authErrorKey({ code })).toBe(key);
    expect(en.errors[key as keyof typeof en.errors]).toBeTruthy();
  });

  it('leaves unknown codes and non-errors to the form’s fallback message', () => {
    expect(authErrorKey({ code: 'auth/something-new' })).toBeUndefined();
    expect(authErrorKey(new Error('boom'))).toBeUndefined();
    expect(authErrorKey(undefined)).toBeUndefined();
  });
});

describe('validation (spec 5)', () => {
  it('requires a plausible e-mail', () => {
    expect(validateEmail('')).toBe('emailRequired');
    expect(validateEmail('   ')).toBe('emailRequired');
    expect(validateEmail('traveller')).toBe('emailInvalid');
    expect(validateEmail(' ada@example.com ')).toBeUndefined();
  });

  it('requires a password of at least 6 characters, confirmed', () => {
    expect(validateNewPassword('', '')).toBe('passwordRequired');
    expect(validateNewPassword('12345', '12345')).toBe('passwordTooShort');
    expect(validateNewPassword('123456', '123457')).toBe('passwordsMismatch');
    expect(validateNewPassword('123456', '123456')).toBeUndefined();
  });
});

describe('return after login', () => {
  it('goes back to a page of this site only', () => {
    expect(safeNext('?next=%2Far%2Fcheckout', '/profile')).toBe('/ar/checkout');
    expect(safeNext('', '/profile')).toBe('/profile');
    expect(safeNext('?next=https%3A%2F%2Fevil.example', '/profile')).toBe('/profile');
    expect(safeNext('?next=%2F%2Fevil.example', '/profile')).toBe('/profile');
    expect(safeNext('?next=%2F%5Cevil.example', '/profile')).toBe('/profile');
    expect(loginUrl('/de/login', '/de/history?x=1')).toBe('/de/login?next=%2Fde%2Fhistory%3Fx%3D1');
  });

  it('fills placeholders known only in the browser', () => {
    expect(fill(en.profile.verificationSent, { email: 'ada@example.com' })).toContain('ada@example.com');
  });
});

import { describe, expect, it } from 'vitest';
import { authErrorKey } from './errors.ts';
import { loginUrl, safeNext } from './redirect.ts';
import { validateEmail, validateNewPassword } from './validation.ts';
import { fill } from '../../i18n/fill.ts';
import en from '../../../locales/en/auth.json';
import account from '../../../locales/en/account.json';

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
  const origin = 'https://esim.example';
  const next = (value: string) => safeNext({ search: `?next=${encodeURIComponent(value)}`, origin }, '/profile');

  it('goes back to a page of this site only, as the absolute URL it checked', () => {
    expect(next('/ar/checkout?plan=fr-10#pay')).toBe(`${origin}/ar/checkout?plan=fr-10#pay`);
    // As the browser reads it: the page's own scheme without '//' is a path here.
    expect(next('https:evil.example')).toBe(`${origin}/evil.example`);
    expect(safeNext({ search: '', origin }, '/profile')).toBe('/profile');
    expect(loginUrl('/de/login', '/de/history?x=1')).toBe('/de/login?next=%2Fde%2Fhistory%3Fx%3D1');
  });

  it.each([
    '//evil.example',
    '/\\evil.example',
    '\\/evil.example',
    'https://evil.example',
    'http://evil.example/profile',
    'javascript:alert(1)',
    'data:text/html,hi',
    '///evil.example',
    `${origin}.evil.example/`,
    'http:evil.example',
  ])('refuses %j', (value) => expect(next(value)).toBe('/profile'));

  // The URL parser drops tab, LF and CR anywhere and every C0 control or space at either end:
  // whatever the browser builds from these, it stays on this site.
  const controls = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code));
  it.each(controls.map((c) => [c.charCodeAt(0), c]))('stays on this site with control character %i', (_, c) => {
    for (const value of [
      `/${c}/evil.example`,
      `${c}//evil.example`,
      `/${c}\\evil.example`,
      `${c}/${c}/evil.example${c}`,
      `java${c}script:alert(1)`,
    ]) {
      expect(new URL(next(value), origin).origin, JSON.stringify(value)).toBe(origin);
    }
  });

  it.each(['\t', '\n', '\r'])('refuses //evil.example split by %j', (c) => {
    expect(next(`/${c}/evil.example`)).toBe('/profile');
    expect(next(`/${c}${c}/evil.example`)).toBe('/profile');
    expect(next(`/${c}\\evil.example`)).toBe('/profile');
  });

  it.each([
    '/login',
    '/signup',
    '/de/login',
    '/ar/signup',
    '/login.html',
    '/de/login/',
    '/ar/signup.html',
    '/fr/login/index.html',
    '/LOGIN',
    '/%6Cogin',
    '/de//login',
    '/store/../login',
    '/login?next=%2Fprofile',
    '/lo\tgin',
  ])('never returns to login or sign-up: %j', (value) => expect(next(value)).toBe('/profile'));

  it('fills placeholders known only in the browser', () => {
    expect(fill(account.profile.verificationSent, { email: 'ada@example.com' })).toContain('ada@example.com');
  });
});

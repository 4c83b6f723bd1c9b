import { describe, expect, it } from 'vitest';
import { checkBuildEnv, firebaseAuthDomain, isRealOrigin, missingFirebaseVariables } from './env.ts';

const REAL_SITE = { PUBLIC_SITE_URL: 'https://shop.example-travel.com' };
const FIREBASE = {
  PUBLIC_FIREBASE_API_KEY: 'AIza-test',
  PUBLIC_FIREBASE_AUTH_DOMAIN: 'travel-esim.firebaseapp.com',
  PUBLIC_FIREBASE_PROJECT_ID: 'travel-esim',
  PUBLIC_FIREBASE_APP_ID: '1:123:web:abc',
};

describe('a real origin (where real visitors arrive)', () => {
  it.each(['https://shop.example-travel.com', 'https://esim.travel', 'https://travel-esim.web.app'])('%s is real', (url) => {
    expect(isRealOrigin(url)).toBe(true);
  });

  it.each([
    'https://esim.example.com', // the default
    'https://example.org',
    'https://shop.example.net',
    'https://shop.test',
    'https://esim.example',
    'http://localhost:4321',
    'http://app.localhost',
    'http://127.0.0.1:4321',
    'http://[::1]:4321',
  ])('%s is not', (url) => {
    expect(isRealOrigin(url)).toBe(false);
  });
});

describe('the build refuses a Firebase configuration that would not sign anyone in', () => {
  it('names exactly the missing variables on a real origin', () => {
    const env = { ...REAL_SITE, PUBLIC_FIREBASE_API_KEY: FIREBASE.PUBLIC_FIREBASE_API_KEY, PUBLIC_FIREBASE_PROJECT_ID: ' ' };
    expect(missingFirebaseVariables(env)).toEqual(['PUBLIC_FIREBASE_AUTH_DOMAIN', 'PUBLIC_FIREBASE_PROJECT_ID', 'PUBLIC_FIREBASE_APP_ID']);
    expect(() => checkBuildEnv(env)).toThrow(
      'PUBLIC_SITE_URL is https://shop.example-travel.com, a real origin, so sign-in needs a real Firebase project, not the Auth emulator. Missing: PUBLIC_FIREBASE_AUTH_DOMAIN, PUBLIC_FIREBASE_PROJECT_ID, PUBLIC_FIREBASE_APP_ID',
    );
  });

  it('stops a real origin without any Firebase configuration from using the Auth emulator', () => {
    expect(() => checkBuildEnv(REAL_SITE)).toThrow(
      /a real origin.*Missing: PUBLIC_FIREBASE_API_KEY, PUBLIC_FIREBASE_AUTH_DOMAIN, PUBLIC_FIREBASE_PROJECT_ID, PUBLIC_FIREBASE_APP_ID/,
    );
  });

  it('refuses a partial configuration on any origin', () => {
    expect(() => checkBuildEnv({ PUBLIC_FIREBASE_APP_ID: FIREBASE.PUBLIC_FIREBASE_APP_ID })).toThrow(
      /all four variables.*Missing: PUBLIC_FIREBASE_API_KEY, PUBLIC_FIREBASE_AUTH_DOMAIN, PUBLIC_FIREBASE_PROJECT_ID \(/,
    );
  });

  it('builds with a complete configuration, or with none (the Auth emulator) off a real origin', () => {
    expect(() => checkBuildEnv({ ...REAL_SITE, ...FIREBASE })).not.toThrow();
    expect(() => checkBuildEnv({})).not.toThrow();
    expect(() => checkBuildEnv({ PUBLIC_SITE_URL: 'http://127.0.0.1:4321' })).not.toThrow();
  });
});

describe('the auth domain the sign-in frames come from', () => {
  it('is the configured project’s, or the demo project’s for the emulator', () => {
    expect(firebaseAuthDomain(FIREBASE)).toBe('travel-esim.firebaseapp.com');
    expect(firebaseAuthDomain({})).toBe('demo-esim.firebaseapp.com');
  });
});

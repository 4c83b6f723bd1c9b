import type { BrowserContext, Page } from '@playwright/test';
import { DEMO_FIREBASE_CONFIG } from '../../src/config/env.ts';

/** Talks to the Firebase Auth emulator (project demo-esim) that playwright.config.ts starts. */
const EMULATOR = 'http://127.0.0.1:9099';
const PROJECT = 'demo-esim';

let counter = 0;
/** A fresh address per test, so tests never share an account. */
export function uniqueEmail(tag: string): string {
  return `${tag}-${Date.now()}-${process.pid}-${counter++}@example.com`;
}

/** A new account in the emulator; answers its ID token (for calls to the shop API as that account). */
export async function createAccount(email: string, password: string, { emailVerified = false } = {}): Promise<string> {
  const response = await fetch(`${EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-key`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password, returnSecureToken: true }),
  });
  if (!response.ok) throw new Error(`emulator signUp failed: ${response.status} ${await response.text()}`);
  const { localId, idToken } = (await response.json()) as { localId: string; idToken: string };
  if (!emailVerified) return idToken;
  // As if the confirmation link had been opened (the emulator's admin credential is 'owner').
  const verified = await fetch(`${EMULATOR}/identitytoolkit.googleapis.com/v1/projects/${PROJECT}/accounts:update`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer owner' },
    body: JSON.stringify({ localId, emailVerified: true }),
  });
  if (!verified.ok) throw new Error(`emulator accounts:update failed: ${verified.status} ${await verified.text()}`);
  return idToken;
}

/**
 * Signs the browser `context` in as a returning visitor is: the account's session stored on the
 * device as Firebase stores it after a sign-in (src/features/auth/firebase.ts), so the first page
 * that loads Firebase restores it (asking the emulator about the account, as for any visitor) and
 * moves it into IndexedDB. A test whose subject is not the login form needs no trip through it:
 * measured, that trip cost 3-5 s a test on two loaded cores (the form waits for Firebase to load).
 * Put once in the context's storage, before its first page: a log-out later stays logged out.
 */
export async function storedSession(context: BrowserContext, email: string, password: string): Promise<void> {
  const response = await fetch(
    `${EMULATOR}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=${DEMO_FIREBASE_CONFIG.apiKey}`,
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password, returnSecureToken: true }),
    },
  );
  if (!response.ok) throw new Error(`emulator signInWithPassword failed: ${response.status} ${await response.text()}`);
  const { localId, idToken, refreshToken, expiresIn } = (await response.json()) as Record<string, string>;
  const claims = JSON.parse(Buffer.from(idToken!.split('.')[1]!, 'base64url').toString()) as { email_verified?: boolean };
  const now = String(Date.now());
  // Firebase's own record of a user (UserImpl.toJSON), which it reads back with UserImpl._fromJSON.
  const user = {
    uid: localId,
    email,
    emailVerified: claims.email_verified === true,
    isAnonymous: false,
    providerData: [{ providerId: 'password', uid: email, displayName: null, email, phoneNumber: null, photoURL: null }],
    stsTokenManager: { refreshToken, accessToken: idToken, expirationTime: Date.now() + Number(expiresIn) * 1000 },
    createdAt: now,
    lastLoginAt: now,
    apiKey: DEMO_FIREBASE_CONFIG.apiKey,
    appName: '[DEFAULT]',
  };
  await context.addInitScript(
    ({ key, value }) => {
      const once = `e2e-stored-session:${key}`;
      try {
        if (localStorage.getItem(once) !== null) return;
        localStorage.setItem(once, '1');
        localStorage.setItem(key, value);
      } catch {
        // A page without storage of its own (about:blank).
      }
    },
    { key: `firebase:authUser:${DEMO_FIREBASE_CONFIG.apiKey}:[DEFAULT]`, value: JSON.stringify(user) },
  );
}

/** The e-mails the emulator "sent" (verification, password reset) to an address. */
export async function oobCodes(email: string): Promise<Array<{ email: string; requestType: string; oobLink: string }>> {
  const response = await fetch(`${EMULATOR}/emulator/v1/projects/${PROJECT}/oobCodes`);
  const { oobCodes } = (await response.json()) as { oobCodes: Array<{ email: string; requestType: string; oobLink: string }> };
  return oobCodes.filter((code) => code.email === email);
}

/** Records the identity-service calls a page makes, to prove a form sent none. */
export function recordAuthRequests(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('identitytoolkit.googleapis.com')) calls.push(request.url());
  });
  return calls;
}

/**
 * Every page the main frame sets out to load, in order: also one that a later navigation cut
 * short, so two parts of a page racing to navigate show even when only one wins.
 */
export function recordNavigations(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) urls.push(request.url());
  });
  return urls;
}

/**
 * On a phone Firebase loads Google's apis.google.com script before it reports the stored user;
 * this closed network answers that name only after a DNS timeout (5 s and more, at random).
 * Failing it at once, as a network without Google would, keeps page after page as quick as
 * it is for a visitor (tests/e2e/federated-sign-in.spec.ts serves a stand-in instead).
 */
export async function failGoogleApis(context: BrowserContext): Promise<void> {
  await context.route('https://apis.google.com/**', (route) => route.abort('internetdisconnected'));
}

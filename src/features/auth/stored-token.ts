import { FIREBASE_CONFIG } from './firebase-config.ts';

/**
 * The signed-in user's ID token as Firebase stored it on this device, read without loading
 * Firebase and before it has restored the session (issue 31 item 3): on a page load Firebase
 * reads the same record, then asks Google about the account (accounts:lookup, a round trip) before
 * it reports the user, and only then hands out this token (getIdToken without a refresh returns
 * the stored one until 30 s before it expires). A page that must ask the shop API at once (the
 * payment success page) can send it meanwhile; the API checks it as it checks every token.
 *
 * Undefined whenever in doubt, and the page then waits for Firebase as before: nothing stored
 * (signed out), a token expiring within a minute (Firebase would refresh it), a record of another
 * shape (a Firebase version that stores it differently), storage that cannot be read. Reads
 * Firebase's own places, in its order (firebase.ts): the IndexedDB database firebaseLocalStorageDb,
 * then localStorage, under `firebase:authUser:{apiKey}:[DEFAULT]`. Never writes: a database that
 * does not exist is not created.
 */
export async function storedIdToken(now = Date.now()): Promise<string | undefined> {
  const key = `firebase:authUser:${FIREBASE_CONFIG.apiKey}:[DEFAULT]`;
  try {
    const stored = (await fromIndexedDb(key)) ?? fromLocalStorage(key);
    return usableToken(stored, now);
  } catch {
    return undefined;
  }
}

/** How long a stored token must still be valid to be sent: beyond Firebase's own 30 s, for clocks a little apart. */
export const STORED_TOKEN_MARGIN_MS = 60_000;

/** The access token of a stored user record, unless it is missing, malformed or expires within the margin. */
export function usableToken(stored: unknown, now: number): string | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const tokens = (stored as { stsTokenManager?: unknown }).stsTokenManager;
  if (typeof tokens !== 'object' || tokens === null) return undefined;
  const { accessToken, expirationTime } = tokens as { accessToken?: unknown; expirationTime?: unknown };
  if (typeof accessToken !== 'string' || !/^[\w-]+\.[\w-]+\.[\w-]*$/.test(accessToken)) return undefined;
  if (typeof expirationTime !== 'number' || expirationTime - STORED_TOKEN_MARGIN_MS <= now) return undefined;
  return accessToken;
}

function fromIndexedDb(key: string): Promise<unknown> {
  return new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(undefined);
    const opening = indexedDB.open('firebaseLocalStorageDb');
    // No such database yet: nothing stored, and nothing created here.
    opening.onupgradeneeded = () => opening.transaction?.abort();
    opening.onerror = () => resolve(undefined);
    opening.onblocked = () => resolve(undefined);
    opening.onsuccess = () => {
      const db = opening.result;
      try {
        const reading = db.transaction('firebaseLocalStorage', 'readonly').objectStore('firebaseLocalStorage').get(key);
        reading.onsuccess = () => resolve((reading.result as { value?: unknown } | undefined)?.value);
        reading.onerror = () => resolve(undefined);
      } catch {
        resolve(undefined);
      } finally {
        // Closed once the read is done; Firebase opens its own.
        db.close();
      }
    };
  });
}

function fromLocalStorage(key: string): unknown {
  const raw = localStorage.getItem(key);
  return raw ? JSON.parse(raw) : undefined;
}

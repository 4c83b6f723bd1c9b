import { onAuthStateChanged, type User } from 'firebase/auth';
import { atom, onMount } from 'nanostores';
import { firebaseAuth } from './firebase.ts';

/** Auth state (spec 4): loading until Firebase answers, then signed in or signed out. */
export type Session =
  | { status: 'loading' }
  | { status: 'signedOut' }
  | { status: 'signedIn'; user: User };

export const $session = atom<Session>({ status: 'loading' });

// Listen only while an island uses the session; Firebase refreshes tokens and signs out
// disabled or expired accounts on its own, and the listener passes that on.
onMount($session, () => {
  if (typeof window === 'undefined') return; // Server rendering: the state stays 'loading'.
  return onAuthStateChanged(firebaseAuth(), (user) =>
    $session.set(user ? { status: 'signedIn', user } : { status: 'signedOut' }),
  );
});

/** Re-reads the user after a change Firebase does not announce (display name, verification). */
export function refreshSession(user: User): void {
  $session.set({ status: 'signedIn', user });
}

import { onAuthStateChanged, type User } from 'firebase/auth';
import { atom, onMount } from 'nanostores';
import { forgetSavedEsims } from '../esims/saved-esims.ts';
import { firebaseAuth } from './firebase.ts';

/** Auth state (spec 4): loading until Firebase answers, then signed in or signed out. */
export type Session = { status: 'loading' } | { status: 'signedOut'; leaveTo: string | undefined } | { status: 'signedIn'; user: User };

export const $session = atom<Session>({ status: 'loading' });

/** Where a session ended on purpose sends the visitor (endSession). */
let leaveTo: string | undefined;

// Listen only while an island uses the session; Firebase refreshes tokens and signs out
// disabled or expired accounts on its own, and the listener passes that on.
onMount($session, () => {
  if (typeof window === 'undefined') return; // Server rendering: the state stays 'loading'.
  return onAuthStateChanged(firebaseAuth(), (user) => $session.set(user ? { status: 'signedIn', user } : { status: 'signedOut', leaveTo }));
});

/** Re-reads the user after a change Firebase does not announce (display name, verification). */
export function refreshSession(user: User): void {
  $session.set({ status: 'signedIn', user });
}

/**
 * Ends the session on purpose (log out, delete the account) and says where the visitor goes
 * then. The guard, which sends any signed-out visitor away, makes that one navigation, so the
 * caller and the guard never race to different pages. What the device kept for the user
 * (My eSIMs with their install codes, for reading offline) goes with the session.
 */
export async function endSession(end: () => Promise<void>, to: string): Promise<void> {
  leaveTo = to;
  try {
    await end();
  } finally {
    // Still signed in (the call failed or wants a fresh login): a later sign-out goes to login as usual.
    if (firebaseAuth().currentUser) leaveTo = undefined;
    else forgetSavedEsims();
  }
}

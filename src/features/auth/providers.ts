import { GoogleAuthProvider, OAuthProvider, signInWithPopup } from 'firebase/auth';
import { firebaseAuth } from './firebase.ts';

/** Federated sign-in through a popup: Google, and Apple (DESIGN 2: a working button, not a dead one). */
export function signInWith(provider: 'google' | 'apple') {
  const instance = provider === 'google' ? new GoogleAuthProvider() : new OAuthProvider('apple.com');
  return signInWithPopup(firebaseAuth(), instance);
}

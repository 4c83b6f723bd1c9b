import { API_BASE_URL } from '../../shop-client/api-base.ts';
import { createSupportClient } from '../../shop-client/support-client.ts';
import { firebaseAuth } from '../auth/firebase.ts';

/** The support API as this page calls it. */
export const supportClient = createSupportClient(API_BASE_URL);

/** The signed-in buyer's ID token, or undefined for a visitor. */
export async function idTokenIfSignedIn(): Promise<string | undefined> {
  const auth = firebaseAuth();
  await auth.authStateReady();
  return auth.currentUser ? auth.currentUser.getIdToken() : undefined;
}

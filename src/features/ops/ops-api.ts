import { firebaseAuth } from '../auth/firebase.ts';
import { API_BASE_URL } from '../../shop-client/api-base.ts';
import { createOpsClient, OpsError } from './ops-client.ts';

/** The ops API as the signed-in operator (the same base URL and ID token the shop's pages use). */
export const opsClient = createOpsClient({
  baseUrl: API_BASE_URL,
  async idToken() {
    const auth = firebaseAuth();
    await auth.authStateReady();
    if (!auth.currentUser) throw new OpsError('unauthorized', 401);
    return auth.currentUser.getIdToken();
  },
});

import { getApps, initializeApp } from 'firebase-admin/app';
import { getAuth } from 'firebase-admin/auth';

export interface Caller {
  uid: string;
  email: string | null;
}

export type VerifyIdToken = (token: string) => Promise<Caller>;

/**
 * Verifies Firebase ID tokens with firebase-admin (DESIGN 6): signature, expiry, audience and
 * issuer of the project. With FIREBASE_AUTH_EMULATOR_HOST set, the Auth emulator's tokens.
 */
export function firebaseTokenVerifier(projectId: string): VerifyIdToken {
  const name = `shop-api-${projectId}`;
  const app = getApps().find((a) => a.name === name) ?? initializeApp({ projectId }, name);
  const auth = getAuth(app);
  return async (token) => {
    const decoded = await auth.verifyIdToken(token);
    return { uid: decoded.uid, email: decoded.email ?? null };
  };
}

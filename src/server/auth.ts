import { getApps, initializeApp } from 'firebase-admin/app';
import { getAuth } from 'firebase-admin/auth';

export interface Caller {
  uid: string;
  email: string | null;
  /** The accounts service confirmed that the person receives mail at `email` (a link clicked, or a provider that vouches for it). */
  emailVerified: boolean;
  /** When the person last signed in (not when the token was refreshed): irreversible steps want it recent. */
  signedInAt: Date;
}

/** Checks a Firebase ID token; with `checkRevoked`, also that the account exists and its sessions were not revoked. */
export type VerifyIdToken = (token: string, options?: { checkRevoked?: boolean }) => Promise<Caller>;

/** What the shop asks of the accounts service: who calls, and deleting an account for good. */
export interface Accounts {
  verifyIdToken: VerifyIdToken;
  deleteAccount(uid: string): Promise<void>;
}

/**
 * Firebase Authentication through firebase-admin (DESIGN 6): ID tokens checked for signature,
 * expiry, audience and issuer of the project; accounts deleted on the server, so the shop's data
 * and the account go together. With FIREBASE_AUTH_EMULATOR_HOST set, the Auth emulator's.
 */
export function firebaseAccounts(projectId: string): Accounts {
  const name = `shop-api-${projectId}`;
  const app = getApps().find((a) => a.name === name) ?? initializeApp({ projectId }, name);
  const auth = getAuth(app);
  return {
    async verifyIdToken(token, options = {}) {
      const decoded = await auth.verifyIdToken(token, options.checkRevoked ?? false);
      return {
        uid: decoded.uid,
        email: decoded.email ?? null,
        emailVerified: decoded.email_verified === true,
        signedInAt: new Date(decoded.auth_time * 1000),
      };
    },
    async deleteAccount(uid) {
      await auth.deleteUser(uid);
    },
  };
}

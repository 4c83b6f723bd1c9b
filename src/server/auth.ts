import { getApps, initializeApp } from 'firebase-admin/app';
import { getAuth } from 'firebase-admin/auth';
import { OPS_ROLES, type OpsRole } from '../contract/ops-api.ts';

export interface Caller {
  uid: string;
  email: string | null;
  /** The accounts service confirmed that the person receives mail at `email` (a link clicked, or a provider that vouches for it). */
  emailVerified: boolean;
  /** When the person last signed in (not when the token was refreshed): irreversible steps want it recent. */
  signedInAt: Date;
  /** The back office's role (Firebase custom claim `role`, issue 30); absent for a buyer. */
  role?: OpsRole | undefined;
}

/** Checks a Firebase ID token; with `checkRevoked`, also that the account exists and its sessions were not revoked. */
export type VerifyIdToken = (token: string, options?: { checkRevoked?: boolean }) => Promise<Caller>;

/** The token was fine but its account is disabled: the provider blocked it (issue 30). */
export class AccountDisabledError extends Error {
  constructor() {
    super('auth/user-disabled');
  }
}

/** An account as the back office sees it. */
export interface AccountRecord {
  uid: string;
  email: string | null;
  disabled: boolean;
  role: OpsRole | undefined;
}

/** What the shop asks of the accounts service: who calls, deleting an account for good, and the back office's account changes. */
export interface Accounts {
  /** Throws AccountDisabledError (with checkRevoked) when the account is disabled, another error when the token is not valid. */
  verifyIdToken: VerifyIdToken;
  deleteAccount(uid: string): Promise<void>;
  /** The account, or undefined when there is none. */
  find(by: { uid: string } | { email: string }): Promise<AccountRecord | undefined>;
  /** Disables (blocks) or enables an account; disabling also signs it out everywhere. */
  setDisabled(uid: string, disabled: boolean): Promise<void>;
  /** Sets or removes the `role` claim and signs the account out everywhere, so the next token carries the change. */
  setRole(uid: string, role: OpsRole | undefined): Promise<void>;
}

function roleOf(claims: Record<string, unknown> | undefined): OpsRole | undefined {
  const role = claims?.['role'];
  return (OPS_ROLES as readonly unknown[]).includes(role) ? (role as OpsRole) : undefined;
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
      let decoded;
      try {
        decoded = await auth.verifyIdToken(token, options.checkRevoked ?? false);
      } catch (error) {
        if ((error as { code?: string }).code === 'auth/user-disabled') throw new AccountDisabledError();
        throw error;
      }
      return {
        uid: decoded.uid,
        email: decoded.email ?? null,
        emailVerified: decoded.email_verified === true,
        signedInAt: new Date(decoded.auth_time * 1000),
        role: roleOf(decoded),
      };
    },
    async deleteAccount(uid) {
      await auth.deleteUser(uid);
    },
    async find(by) {
      try {
        const user = 'uid' in by ? await auth.getUser(by.uid) : await auth.getUserByEmail(by.email);
        return { uid: user.uid, email: user.email ?? null, disabled: user.disabled, role: roleOf(user.customClaims) };
      } catch (error) {
        if ((error as { code?: string }).code === 'auth/user-not-found') return undefined;
        throw error;
      }
    },
    async setDisabled(uid, disabled) {
      await auth.updateUser(uid, { disabled });
      // A disabled account's refresh is refused anyway; revoking also fails its current ID token on every write.
      if (disabled) await auth.revokeRefreshTokens(uid);
    },
    async setRole(uid, role) {
      const { customClaims = {} } = await auth.getUser(uid);
      const { role: _old, ...others } = customClaims;
      await auth.setCustomUserClaims(uid, role ? { ...others, role } : others);
      // A claim reaches the ID token only at its next refresh: revoking makes that now (DESIGN 8).
      await auth.revokeRefreshTokens(uid);
    },
  };
}

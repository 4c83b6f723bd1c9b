import { getApps, initializeApp } from 'firebase-admin/app';
import { getAuth } from 'firebase-admin/auth';
import { OPS_ROLES, type OpsRole } from '../contract/ops-api.ts';
import type { Accounts } from './auth.types.ts';

/** The token was fine but its account is disabled: the provider blocked it (issue 30). */
export class AccountDisabledError extends Error {
  constructor() {
    super('auth/user-disabled');
  }
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

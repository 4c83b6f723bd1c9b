import type { Accounts } from '../../src/server/auth.types.ts';
import { firebaseAccounts } from '../../src/server/auth.ts';

/**
 * The accounts service as firebase-admin behaves in production. There, `verifyIdToken` without
 * `checkRevoked` checks the token offline (Google's signature, expiry, audience, issuer) and never
 * looks the account up: a deleted or disabled account's token passes until its hour is over. With
 * the Auth emulator, firebase-admin looks the account up on every call, which hides a missing
 * `checkRevoked` from the tests. So this verifier reads the emulator's (unsigned) token offline,
 * as production would once its signature checked out, and asks the emulator only when
 * `checkRevoked` is set, exactly when production asks Firebase.
 */
export function productionLikeAccounts(projectId: string): Accounts {
  const real = firebaseAccounts(projectId);
  return {
    async verifyIdToken(token, options = {}) {
      if (options.checkRevoked) return real.verifyIdToken(token, options);
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      const valid =
        claims['aud'] === projectId &&
        claims['iss'] === `https://securetoken.google.com/${projectId}` &&
        typeof claims['sub'] === 'string' &&
        typeof claims['exp'] === 'number' &&
        claims['exp'] * 1000 > Date.now();
      if (!valid) throw new Error('auth/argument-error');
      return {
        uid: claims['sub'] as string,
        email: typeof claims['email'] === 'string' ? claims['email'] : null,
        emailVerified: claims['email_verified'] === true,
        signedInAt: new Date(Number(claims['auth_time']) * 1000),
        role: claims['role'] === 'support' || claims['role'] === 'admin' ? claims['role'] : undefined,
      };
    },
    deleteAccount: (uid) => real.deleteAccount(uid),
    find: (by) => real.find(by),
    setDisabled: (uid, disabled) => real.setDisabled(uid, disabled),
    setRole: (uid, role) => real.setRole(uid, role),
  };
}

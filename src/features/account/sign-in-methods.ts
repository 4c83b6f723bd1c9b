import type { User } from 'firebase/auth';
import { RECENT_SIGN_IN_MS } from '../../config/constants.ts';

/** Signs in with a password (not only Google or Apple): can change it, and confirms a deletion with it. */
export const usesPassword = (user: User) => user.providerData.some((p) => p.providerId === 'password');

/** Firebase deletes an account only within five minutes of a sign-in; a minute's margin for the way there. */
export async function signedInRecently(user: User): Promise<boolean> {
  const { authTime } = await user.getIdTokenResult();
  return Date.now() - Date.parse(authTime) < RECENT_SIGN_IN_MS - 60_000;
}

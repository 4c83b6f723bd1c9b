import { inject } from 'vitest';
import { signInOn, signUpOn } from '../../scripts/lib/auth-emulator.ts';

/**
 * A new account on the run's Auth emulator (tests/support/auth-emulator.ts) and its ID token. Its
 * address is verified unless asked otherwise: most tests follow a buyer who receives the install
 * codes by e-mail, which go to verified addresses only (the unverified buyer has tests of its own).
 */
export const signUp = (email?: string, { emailVerified = true }: { emailVerified?: boolean } = {}) =>
  signUpOn(inject('authEmulatorHost'), email, { emailVerified });

/** Signs an account made by signUp in again with its password: a fresh ID token and refresh token. */
export const signIn = (email: string) => signInOn(inject('authEmulatorHost'), email);

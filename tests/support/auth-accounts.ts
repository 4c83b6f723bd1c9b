import { inject } from 'vitest';
import { signUpOn } from '../../scripts/lib/auth-emulator.ts';

/** A new account on the run's Auth emulator (tests/support/auth-emulator.ts) and its ID token. */
export const signUp = (email?: string) => signUpOn(inject('authEmulatorHost'), email);

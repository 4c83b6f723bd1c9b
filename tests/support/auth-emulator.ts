// Vitest global setup of the shop project: a real Firebase Auth emulator for the whole run, its
// address handed to tests as inject('authEmulatorHost') (tests/support/auth-accounts.ts signs up on it).
import type { TestProject } from 'vitest/node';
import { startAuthEmulator } from '../../scripts/lib/auth-emulator.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    authEmulatorHost: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const emulator = await startAuthEmulator();
  project.provide('authEmulatorHost', emulator.host);
  return emulator.stop;
}

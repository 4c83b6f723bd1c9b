import { useSyncExternalStore } from 'react';
import { installPath, phoneSystem, type InstallPath, type PhoneSystem } from './platform.ts';

const never = () => () => {};

/**
 * What this browser is, known only in the browser: a server-rendered or hydrating island gets
 * undefined (the same HTML as the server's, no hydration mismatch) and React renders again with
 * the device's answer; an island mounted later gets it at once. The user agent does not change.
 */
export function useDevice(): { path: InstallPath; system: PhoneSystem } | undefined {
  const path = useSyncExternalStore(
    never,
    () => installPath(navigator),
    () => undefined,
  );
  const system = useSyncExternalStore(
    never,
    () => phoneSystem(navigator),
    () => undefined,
  );
  return path && system ? { path, system } : undefined;
}

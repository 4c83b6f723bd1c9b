import { useSyncExternalStore } from 'react';

const noSubscription = () => () => {};
/**
 * False in the server HTML and until React has hydrated, then true. Buttons stay disabled until
 * then, so a tap on a slow phone is never lost and a form is never submitted natively (which
 * would put the password in the URL).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

import { useSyncExternalStore } from 'react';

const watch = (changed: () => void) => {
  addEventListener('online', changed);
  addEventListener('offline', changed);
  return () => {
    removeEventListener('online', changed);
    removeEventListener('offline', changed);
  };
};

/** Whether the browser believes it is online, following its online and offline events (true in the server HTML). */
export function useOnline(): boolean {
  return useSyncExternalStore(
    watch,
    () => navigator.onLine,
    () => true,
  );
}

import { useCallback, useEffect, useRef, useState } from 'react';

export type Loaded<T> = { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'ready'; data: T };

/**
 * Loads with `load` whenever `key` changes (or reload() is called), dropping an answer that
 * arrives after a newer request began, so a quick second search never shows the first's result.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): [Loaded<T>, () => void, (data: T) => void] {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const shown = useRef(key);
  useEffect(() => {
    let current = true;
    // A reload of what is shown keeps it on screen meanwhile (no flicker after an action); anything else starts afresh.
    const sameKey = shown.current === key;
    shown.current = key;
    setState((previous) => (previous.status === 'ready' && sameKey ? previous : { status: 'loading' }));
    load().then(
      (data) => current && setState({ status: 'ready', data }),
      (error: unknown) => current && setState({ status: 'error', error }),
    );
    return () => {
      current = false;
    };
    // `load` is a new function each render; `key` says what it loads (and reload() bumps attempt).
  }, [key, attempt]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const set = useCallback((data: T) => setState({ status: 'ready', data }), []);
  return [state, reload, set];
}

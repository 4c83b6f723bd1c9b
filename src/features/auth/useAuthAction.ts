import { useState } from 'react';
import { authErrorKey } from './errors.ts';
import type { AuthErrorMessages } from './messages.ts';

/**
 * Runs a sign-in style action with the form states of spec 4: idle, busy, then success or a
 * translated error (the fallback message for codes we do not know). Inputs are never cleared.
 */
export function useAuthAction(messages: AuthErrorMessages, fallback: string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      const key = authErrorKey(caught);
      setError(key ? messages.errors[key] : fallback);
      if (!key) console.error(caught);
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, run };
}

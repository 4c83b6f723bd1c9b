import { useEffect, useRef, useSyncExternalStore, type ReactNode } from 'react';

const noSubscription = () => () => {};
/**
 * False in the server HTML and until React has hydrated, then true. Buttons stay disabled until
 * then, so a tap on a slow phone is never lost and a form is never submitted natively (which
 * would put the password in the URL).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, () => true, () => false);
}

/** A labelled input; the label is always visible, never only a placeholder. */
export function Field(props: {
  id: string;
  label: string;
  type: 'email' | 'password' | 'text';
  value: string;
  onChange: (value: string) => void;
  autoComplete: string;
  required?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  // What a traveller typed before the script arrived is kept, not silently replaced by ''.
  useEffect(() => {
    const typed = input.current?.value;
    if (typed && typed !== props.value) props.onChange(typed);
  }, []); // once, at hydration
  return (
    <div>
      <label htmlFor={props.id} className="block text-sm font-medium">
        {props.label}
      </label>
      <input
        ref={input}
        id={props.id}
        name={props.id}
        type={props.type}
        value={props.value}
        required={props.required ?? true}
        autoComplete={props.autoComplete}
        onChange={(event) => props.onChange(event.target.value)}
        className="mt-1 w-full rounded-xl border border-line bg-surface px-4 py-3"
      />
    </div>
  );
}

/** The red box of spec 4, announced to screen readers as soon as it appears. */
export function ErrorBox({ message }: { message: string | undefined }) {
  return (
    <div role="alert" className="empty:hidden">
      {message && <p className="rounded-xl border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200">{message}</p>}
    </div>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="rounded-xl bg-surface-muted px-4 py-3 text-sm">
      {children}
    </p>
  );
}

export function SubmitButton({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  const hydrated = useHydrated();
  return (
    <button type="submit" disabled={busy || !hydrated} aria-busy={busy} className="w-full rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink disabled:opacity-70">
      {busy ? busyLabel : label}
    </button>
  );
}

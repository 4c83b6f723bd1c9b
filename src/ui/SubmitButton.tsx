import { useHydrated } from './use-hydrated.ts';

/** A form's full-width submit button: says it is busy, and stays disabled until React has hydrated. */
export default function SubmitButton({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  const hydrated = useHydrated();
  return (
    <button
      type="submit"
      disabled={busy || !hydrated}
      aria-busy={busy}
      className="w-full rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink disabled:opacity-70"
    >
      {busy ? busyLabel : label}
    </button>
  );
}

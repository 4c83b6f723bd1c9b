/** Tries a failed load again: the islands bump an attempt counter their effect depends on. */
export default function RetryButton({ label, onRetry }: { label: string; onRetry: () => void }) {
  return (
    <button type="button" onClick={onRetry} className="mt-3 rounded-full bg-brand px-5 py-2 font-semibold text-brand-ink">
      {label}
    </button>
  );
}

import { useState } from 'react';

/** Copies a code to the clipboard and says so in a polite live region next to it. */
export default function CopyButton({
  text,
  label,
  copiedText,
  failedText,
}: {
  text: string;
  label: string;
  copiedText: string;
  failedText: string;
}) {
  const [said, setSaid] = useState('');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setSaid(copiedText);
    } catch {
      // No clipboard (an old browser, a denied permission): the code stays visible to select by hand.
      setSaid(failedText);
    }
  }
  return (
    <>
      <button
        type="button"
        onClick={() => void copy()}
        className="rounded-full border border-brand px-3 py-1 text-sm font-semibold text-brand"
      >
        {label}
      </button>
      <span role="status" className="text-sm text-ink-muted">
        {said}
      </span>
    </>
  );
}

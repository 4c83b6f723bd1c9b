import type { ButtonHTMLAttributes } from 'react';

/**
 * A button whose request takes a while: while busy it says so (its busy text, aria-busy) and is
 * marked aria-disabled, not disabled, so the focus stays on it until the answer comes; its onClick
 * ignores clicks meanwhile. Other attributes (type, onClick, data-*) pass through.
 */
export default function BusyButton({
  busy,
  label,
  busyLabel,
  type = 'button',
  ...rest
}: { busy: boolean; label: string; busyLabel: string } & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'>) {
  return (
    <button type={type} aria-disabled={busy} aria-busy={busy} {...rest}>
      {busy ? busyLabel : label}
    </button>
  );
}

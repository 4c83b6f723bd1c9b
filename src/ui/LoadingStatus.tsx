import type { ReactNode } from 'react';

/** What an island says while it loads: a polite status line. */
export default function LoadingStatus({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="py-6 text-ink-muted">
      {children}
    </p>
  );
}

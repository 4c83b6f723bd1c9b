import type { ReactNode } from 'react';

/** A quiet confirmation under a form, announced politely. */
export default function Notice({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="rounded-xl bg-surface-muted px-4 py-3 text-sm">
      {children}
    </p>
  );
}

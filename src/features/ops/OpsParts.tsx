import { signOut } from 'firebase/auth';
import type { MouseEvent, ReactNode } from 'react';
import { firebaseAuth } from '../auth/firebase.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import { useOps } from './ops-context.ts';
import { opsErrorKey, opsErrorText } from './ops-errors.ts';
import type { OpsView } from './ops-view.ts';
import type { Loaded } from './use-load.ts';

/** A link to another screen: a real address (new tab, copy), shown in place on a plain click. */
export function ViewLink({ view, children, className }: { view: OpsView; children: ReactNode; className?: string }) {
  const { href, go } = useOps();
  function click(event: MouseEvent<HTMLAnchorElement>) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    go(view);
  }
  return (
    <a href={href(view)} onClick={click} className={className ?? 'font-medium text-brand underline underline-offset-2'}>
      {children}
    </a>
  );
}

/** A failed request in the page's language, with the way to try again (or to sign in again when that is what it needs). */
export function Failure({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { m, loginHref } = useOps();
  const key = opsErrorKey(error);
  const signInAgain = key === 'recent_login_required' || key === 'unauthorized';
  return (
    <div className="my-3">
      <ErrorBox message={opsErrorText(error, m)} />
      <div className="mt-2 flex gap-3">
        {onRetry && !signInAgain && (
          <button type="button" onClick={onRetry} className="rounded-md bg-brand px-4 py-1.5 font-semibold text-brand-ink">
            {m.errors.retry}
          </button>
        )}
        {signInAgain && (
          <button
            type="button"
            // A fresh sign-in, then back here: the login page would send a still signed-in operator straight back.
            onClick={() => void signOut(firebaseAuth()).finally(() => window.location.assign(loginHref))}
            className="rounded-md bg-brand px-4 py-1.5 font-semibold text-brand-ink"
          >
            {m.session.signInAgain}
          </button>
        )}
      </div>
    </div>
  );
}

/** What a loaded screen shows while loading and after a failure; its content once ready. */
export function Load<T>({
  state,
  loading,
  retry,
  children,
}: {
  state: Loaded<T>;
  loading: string;
  retry: () => void;
  children: (data: T) => ReactNode;
}) {
  if (state.status === 'loading') return <LoadingStatus>{loading}</LoadingStatus>;
  if (state.status === 'error') return <Failure error={state.error} onRetry={retry} />;
  return <>{children(state.data)}</>;
}

/** A term and its value in a dense grid of facts. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex flex-wrap gap-x-2 border-b border-line py-1">
      <dt className="min-w-40 text-ink-muted">{term}</dt>
      <dd className="break-all font-medium">{children}</dd>
    </div>
  );
}

/** A section of a screen with its own heading. */
export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="rounded-lg border border-line p-3">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-bold">{title}</h3>
        {actions}
      </div>
      {children}
    </section>
  );
}

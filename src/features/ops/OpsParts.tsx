import { signOut } from 'firebase/auth';
import { useId, type MouseEvent, type ReactNode } from 'react';
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

/** A search form's text field (its name is q), with a hint below it where one is given. */
export function SearchField(props: { label: string; hint?: string; defaultValue: string; required?: boolean; className?: string }) {
  const id = useId();
  const hintId = useId();
  return (
    <div className={props.className}>
      <label htmlFor={id} className="block text-sm font-semibold">
        {props.label}
      </label>
      <input
        id={id}
        name="q"
        type="search"
        required={props.required}
        defaultValue={props.defaultValue}
        aria-describedby={props.hint ? hintId : undefined}
        className="mt-1 w-full rounded-md border border-line bg-surface px-3 py-2"
      />
      {props.hint && (
        <p id={hintId} className="mt-1 text-xs text-ink-muted">
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** A form field under its label: `field` renders the control with the id the label names. */
function Labelled({ label, field }: { label: string; field: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-semibold">
        {label}
      </label>
      {field(id)}
    </div>
  );
}

/** A date field of a form (a search's or the CSV's range). */
export function DateField({ label, name, defaultValue }: { label: string; name: string; defaultValue?: string }) {
  return (
    <Labelled
      label={label}
      field={(id) => (
        <input
          id={id}
          name={name}
          type="date"
          defaultValue={defaultValue}
          className="mt-1 rounded-md border border-line bg-surface px-2 py-1.5"
        />
      )}
    />
  );
}

/** A choice of a form's filter: "any" first (value ''), then each option by its value and label. */
export function SelectField(props: {
  label: string;
  name: string;
  defaultValue: string;
  any: string;
  options: readonly { value: string; label: string }[];
}) {
  return (
    <Labelled
      label={props.label}
      field={(id) => (
        <select
          id={id}
          name={props.name}
          defaultValue={props.defaultValue}
          className="mt-1 rounded-md border border-line bg-surface px-2 py-2"
        >
          <option value="">{props.any}</option>
          {props.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    />
  );
}

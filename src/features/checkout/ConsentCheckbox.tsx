import type { ReactNode, Ref } from 'react';

interface Props {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** Shown under the box and tied to it (aria-describedby) while the box is required but unticked. */
  error: string | undefined;
  inputRef: Ref<HTMLInputElement>;
  children: ReactNode;
}

/** One required consent of checkout (DESIGN 6: terms; immediate start, BGB § 356(5)); unticked until the buyer ticks it. */
export default function ConsentCheckbox({ id, checked, onChange, error, inputRef, children }: Props) {
  const errorId = `${id}-error`;
  return (
    <div>
      <div className="flex items-start gap-3">
        <input
          ref={inputRef}
          id={id}
          name={id}
          type="checkbox"
          required
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          className="mt-1 size-5 shrink-0 accent-brand"
        />
        <label htmlFor={id} className="text-sm">
          {children}
        </label>
      </div>
      {error && (
        <p id={errorId} className="ms-8 mt-1 text-sm font-medium text-red-700 dark:text-red-300" data-consent-error>
          {error}
        </p>
      )}
    </div>
  );
}

import { useId, type Ref } from 'react';
import type { TravellerDraft, TravellerProblems } from './traveller-draft.ts';

interface Props {
  draft: TravellerDraft;
  problems: TravellerProblems;
  onChange: (draft: TravellerDraft) => void;
  labels: { name: string; email: string };
  messages: { nameMissing: string; emailInvalid: string };
  /** The name field, for the form to focus when it is the first one wrong. */
  nameRef?: Ref<HTMLInputElement> | undefined;
  emailRef?: Ref<HTMLInputElement> | undefined;
}

const inputClass = 'mt-1 w-full rounded-xl border border-line bg-surface px-4 py-3 aria-invalid:border-red-800';

/** A traveller's name and optional address, each labelled, with its problem said beside it. */
export default function TravellerFields({ draft, problems, onChange, labels, messages: m, nameRef, emailRef }: Props) {
  const id = useId();
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <div>
        <label htmlFor={`${id}-name`} className="block text-sm font-medium">
          {labels.name}
        </label>
        <input
          ref={nameRef}
          id={`${id}-name`}
          type="text"
          autoComplete="off"
          maxLength={80}
          value={draft.name}
          aria-invalid={problems.name ? true : undefined}
          aria-describedby={problems.name ? `${id}-name-problem` : undefined}
          onChange={(event) => onChange({ ...draft, name: event.target.value })}
          className={inputClass}
          data-traveller-name
        />
        {problems.name && (
          <p id={`${id}-name-problem`} className="mt-1 text-sm font-semibold text-red-800 dark:text-red-300">
            {m[problems.name]}
          </p>
        )}
      </div>
      <div>
        <label htmlFor={`${id}-email`} className="block text-sm font-medium">
          {labels.email}
        </label>
        <input
          ref={emailRef}
          id={`${id}-email`}
          type="email"
          dir="ltr"
          autoComplete="off"
          maxLength={254}
          value={draft.email}
          aria-invalid={problems.email ? true : undefined}
          aria-describedby={problems.email ? `${id}-email-problem` : undefined}
          onChange={(event) => onChange({ ...draft, email: event.target.value })}
          className={inputClass}
          data-traveller-email
        />
        {problems.email && (
          <p id={`${id}-email-problem`} className="mt-1 text-sm font-semibold text-red-800 dark:text-red-300">
            {m[problems.email]}
          </p>
        )}
      </div>
    </div>
  );
}

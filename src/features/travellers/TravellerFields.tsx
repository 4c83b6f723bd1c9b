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

/** The two fields: the kind of input each is and the longest value the API takes (contract Traveller). */
const FIELDS = {
  name: { type: 'text', maxLength: 80 },
  email: { type: 'email', maxLength: 254 },
} as const;

/** A traveller's name and optional address (issue 33): in the cart, one pair per eSIM, and in My eSIMs. */
export default function TravellerFields({ draft, problems, onChange, labels, messages: m, nameRef, emailRef }: Props) {
  const id = useId();
  const refs = { name: nameRef, email: emailRef };
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      {(['name', 'email'] as const).map((field) => {
        const { type, maxLength } = FIELDS[field];
        const problem = problems[field] && m[problems[field]];
        const problemId = `${id}-${field}-problem`;
        return (
          <div key={field}>
            <label htmlFor={`${id}-${field}`} className="block text-sm font-medium">
              {labels[field]}
            </label>
            <input
              ref={refs[field]}
              id={`${id}-${field}`}
              type={type}
              // An address reads left to right, also in Arabic.
              dir={type === 'email' ? 'ltr' : undefined}
              autoComplete="off"
              maxLength={maxLength}
              value={draft[field]}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? problemId : undefined}
              onChange={(event) => onChange({ ...draft, [field]: event.target.value })}
              className="mt-1 w-full rounded-xl border border-line bg-surface px-4 py-3 aria-invalid:border-red-800"
              {...{ [`data-traveller-${field}`]: true }}
            />
            {problem && (
              <p id={problemId} className="mt-1 text-sm font-semibold text-red-800 dark:text-red-300">
                {problem}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}

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

/** One labelled input with its problem said beside it and tied to it (aria-describedby). */
function Input({
  inputRef,
  ...props
}: {
  id: string;
  label: string;
  type: 'text' | 'email';
  maxLength: number;
  value: string;
  problem: string | undefined;
  onChange: (value: string) => void;
  inputRef: Ref<HTMLInputElement> | undefined;
  data: string;
}) {
  return (
    <div>
      <label htmlFor={props.id} className="block text-sm font-medium">
        {props.label}
      </label>
      <input
        ref={inputRef}
        id={props.id}
        type={props.type}
        // An address reads left to right, also in Arabic.
        dir={props.type === 'email' ? 'ltr' : undefined}
        autoComplete="off"
        maxLength={props.maxLength}
        value={props.value}
        aria-invalid={props.problem ? true : undefined}
        aria-describedby={props.problem ? `${props.id}-problem` : undefined}
        onChange={(event) => props.onChange(event.target.value)}
        className="mt-1 w-full rounded-xl border border-line bg-surface px-4 py-3 aria-invalid:border-red-800"
        {...{ [props.data]: true }}
      />
      {props.problem && (
        <p id={`${props.id}-problem`} className="mt-1 text-sm font-semibold text-red-800 dark:text-red-300">
          {props.problem}
        </p>
      )}
    </div>
  );
}

/** A traveller's name and optional address (issue 33): in the cart, one pair per eSIM, and in My eSIMs. */
export default function TravellerFields({ draft, problems, onChange, labels, messages: m, nameRef, emailRef }: Props) {
  const id = useId();
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <Input
        id={`${id}-name`}
        label={labels.name}
        type="text"
        maxLength={80}
        value={draft.name}
        problem={problems.name && m[problems.name]}
        onChange={(name) => onChange({ ...draft, name })}
        inputRef={nameRef}
        data="data-traveller-name"
      />
      <Input
        id={`${id}-email`}
        label={labels.email}
        type="email"
        maxLength={254}
        value={draft.email}
        problem={problems.email && m[problems.email]}
        onChange={(email) => onChange({ ...draft, email })}
        inputRef={emailRef}
        data="data-traveller-email"
      />
    </div>
  );
}

import { useEffect, useRef } from 'react';

/** A labelled input; the label is always visible, never only a placeholder. */
export default function Field(props: {
  id: string;
  label: string;
  type: 'email' | 'password' | 'text';
  value: string;
  onChange: (value: string) => void;
  autoComplete: string;
  required?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  // What a traveller typed before the script arrived is kept, not silently replaced by ''.
  useEffect(() => {
    const typed = input.current?.value;
    if (typed && typed !== props.value) props.onChange(typed);
    // Once, at hydration: later values come through onChange.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <div>
      <label htmlFor={props.id} className="block text-sm font-medium">
        {props.label}
      </label>
      <input
        ref={input}
        id={props.id}
        name={props.id}
        type={props.type}
        value={props.value}
        required={props.required ?? true}
        autoComplete={props.autoComplete}
        onChange={(event) => props.onChange(event.target.value)}
        className="mt-1 w-full rounded-xl border border-line bg-surface px-4 py-3"
      />
    </div>
  );
}

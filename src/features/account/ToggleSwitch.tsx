/** An on/off switch (role=switch), named by a visible label's id or by its own text. */
export default function ToggleSwitch({
  id,
  checked,
  onChange,
  disabled = false,
  labelledBy,
  label,
  describedBy,
}: {
  id?: string | undefined;
  checked: boolean;
  onChange: (on: boolean) => void;
  disabled?: boolean | undefined;
  labelledBy?: string | undefined;
  label?: string | undefined;
  describedBy?: string | undefined;
}) {
  return (
    <button
      type="button"
      role="switch"
      id={id}
      aria-checked={checked}
      aria-labelledby={labelledBy}
      aria-label={label}
      aria-describedby={describedBy}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      className="relative h-7 w-12 shrink-0 rounded-full bg-line transition-colors aria-checked:bg-brand disabled:cursor-not-allowed disabled:opacity-50"
    >
      <span
        aria-hidden="true"
        className={`absolute top-1 size-5 rounded-full bg-white shadow transition-all ${checked ? 'start-6' : 'start-1'}`}
      />
    </button>
  );
}

/** One on/off setting, labelled, as a switch. */
export default function SettingSwitch({
  id,
  label,
  checked,
  onChange,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <div className="flex items-center justify-between gap-4 py-2">
      <span id={`${id}-label`}>{label}</span>
      <button
        type="button"
        role="switch"
        id={id}
        aria-checked={checked}
        aria-labelledby={`${id}-label`}
        onClick={() => onChange(!checked)}
        className="relative h-7 w-12 shrink-0 rounded-full bg-line transition-colors aria-checked:bg-brand"
      >
        <span
          aria-hidden="true"
          className={`absolute top-1 size-5 rounded-full bg-white shadow transition-all ${checked ? 'start-6' : 'start-1'}`}
        />
      </button>
    </div>
  );
}

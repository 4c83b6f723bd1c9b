import ToggleSwitch from './ToggleSwitch.tsx';

/** One on/off setting, labelled, as a switch. */
export default function SettingSwitch({
  id,
  label,
  checked,
  onChange,
  disabled,
  describedBy,
}: {
  id: string;
  label: string;
  checked: boolean;
  onChange: (on: boolean) => void;
  disabled?: boolean | undefined;
  describedBy?: string | undefined;
}) {
  return (
    <div className="flex items-center justify-between gap-4 py-2">
      <span id={`${id}-label`}>{label}</span>
      <ToggleSwitch
        id={id}
        labelledBy={`${id}-label`}
        checked={checked}
        onChange={onChange}
        disabled={disabled}
        describedBy={describedBy}
      />
    </div>
  );
}

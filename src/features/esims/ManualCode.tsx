import CopyButton from './CopyButton.tsx';
import type { InstallCodesMessages } from './messages.ts';

interface Props {
  label: string;
  value: string;
  messages: Pick<InstallCodesMessages, 'copy' | 'copied' | 'copyFailed'>;
  /** data-code, for the tests. */
  name: string;
}

/** One code to type in by hand (SM-DP+ address, activation code), with its copy button. */
export default function ManualCode({ label, value, messages: m, name }: Props) {
  return (
    <div>
      <dt className="text-sm text-ink-muted">{label}</dt>
      <dd className="flex flex-wrap items-center gap-2">
        <code dir="ltr" className="break-all font-mono" data-code={name}>
          {value}
        </code>
        <CopyButton text={value} label={m.copy.replace('{{what}}', label)} copiedText={m.copied} failedText={m.copyFailed} />
      </dd>
    </div>
  );
}

import CopyButton from './CopyButton.tsx';
import type { ChecklistMessages } from './messages.ts';

/** The partner's APN to type in the phone's settings, with a copy button: the checklist's and the diagnosis' APN step. */
export default function ApnCode({
  apn,
  messages: m,
}: {
  apn: string;
  messages: Pick<ChecklistMessages, 'copy' | 'apnLabel' | 'copied' | 'copyFailed'>;
}) {
  return (
    <span className="mt-1 flex flex-wrap items-center gap-2">
      <code dir="ltr" className="break-all font-mono" data-code="apn">
        {apn}
      </code>
      <CopyButton text={apn} label={m.copy.replace('{{what}}', m.apnLabel)} copiedText={m.copied} failedText={m.copyFailed} />
    </span>
  );
}

import { useId } from 'react';
import ApnCode from './ApnCode.tsx';
import type { ChecklistMessages } from './messages.ts';
import { useDevice } from './use-device.ts';

interface Props {
  /** The partner's APN for the eSIM; null (or absent in a copy saved before it was sent): no APN step. */
  apn: string | null | undefined;
  messages: ChecklistMessages;
}

/** The get-connected checklist in the words of this phone's system (iOS, Android, or general ones elsewhere). */
export default function ConnectChecklist({ apn, messages: m }: Props) {
  const headingId = useId();
  // The server and the hydrating render know no device: general words until the browser says.
  const steps = m[useDevice()?.system ?? 'other'];
  return (
    <section aria-labelledby={headingId} className="mt-4 rounded-xl border border-line p-4" data-connect-checklist>
      <h3 id={headingId} className="font-semibold">
        {m.heading}
      </h3>
      <p className="mt-1 text-sm text-ink-muted">{m.intro}</p>
      <ol className="mt-3 list-decimal space-y-2 ps-5">
        <li>{steps.lineOn}</li>
        <li>{steps.dataLine}</li>
        <li>{steps.roaming}</li>
        {apn && (
          <li data-connect-apn>
            {steps.apn}
            <ApnCode apn={apn} messages={m} />
          </li>
        )}
      </ol>
      <p className="mt-3 text-sm text-ink-muted">{m.homeSim}</p>
    </section>
  );
}

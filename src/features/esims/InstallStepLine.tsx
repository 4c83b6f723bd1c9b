import { DOWNLOADED_HELP_AFTER_MS } from '../../config/constants.ts';
import type { EsimView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { EsimCardMessages } from './my-esims-messages.ts';
import { showsInstallStep } from './paused.ts';

interface Props {
  /** Its install step and when it was reached (ISO), if known; none is shown without a step or while it is paused. */
  esim: Pick<EsimView, 'status' | 'installStep' | 'installStepAt'>;
  /** The time the page last looked (the live status' clock): the downloaded-not-installed help shows from 10 minutes on. */
  now: number;
  supportPath: string;
  messages: Pick<EsimCardMessages, 'installStep' | 'installSteps' | 'helpDownloaded' | 'helpDeleted' | 'contactSupport'>;
}

/**
 * Where the eSIM is on the phone, in words, updated while My eSIMs is open (announced politely), with
 * the help a step calls for: downloaded but not installed for 10 minutes (the install may be
 * waiting on the phone), or deleted from the phone (it cannot be installed again: support).
 */
export default function InstallStepLine({ esim, now, supportPath, messages: m }: Props) {
  const { installStep: step, installStepAt: since } = esim;
  if (step === null || !showsInstallStep(esim)) return null;
  const stuck = step === 'downloaded' && since !== null && now - Date.parse(since) >= DOWNLOADED_HELP_AFTER_MS;
  return (
    <div className="mt-2 text-sm">
      <p aria-live="polite" data-install-step={step}>
        {fill(m.installStep, { step: m.installSteps[step] })}
      </p>
      {stuck && (
        <p className="mt-2 rounded-xl bg-surface-muted px-4 py-3" data-install-help="downloaded">
          {m.helpDownloaded}
        </p>
      )}
      {step === 'deleted' && (
        <p className="mt-2 rounded-xl bg-surface-muted px-4 py-3" data-install-help="deleted">
          {m.helpDeleted}{' '}
          <a href={supportPath} className="font-semibold text-brand underline">
            {m.contactSupport}
          </a>
        </p>
      )}
    </div>
  );
}

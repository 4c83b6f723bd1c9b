import { useEffect, useId, useRef, useState } from 'react';
import type { EsimView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatBytes } from '../../lib/data-size.ts';
import { formatDataAmount, formatSpeed } from '../../lib/format.ts';
import { diagnoseEsim } from '../../shop-client/shop.ts';
import type { ShopErrorMessages } from '../../shop-client/shop-error-messages.ts';
import ApnCode from './ApnCode.tsx';
import ReplaceOffer from './ReplaceOffer.tsx';
import { diagnose, fixStepTexts } from './diagnosis.ts';
import type { EsimCardMessages, MyEsimsPaths } from './my-esims-messages.ts';
import { useDevice } from './use-device.ts';

interface Props {
  esim: EsimView;
  locale: Locale;
  /** The live status' clock (MyEsims): the diagnosis follows the eSIM's state while the page is open. */
  now: number;
  paths: Pick<MyEsimsPaths, 'support' | 'package' | 'chat'>;
  messages: Pick<EsimCardMessages, 'diagnosis' | 'checklist' | 'showCodes' | 'contactSupport' | 'replace' | keyof ShopErrorMessages>;
  /** Read from the device while offline: the last known state, nothing asked. */
  offline: boolean;
  /** The eSIM as the partner has it now, once read (it replaces the card's). */
  onRead: (esim: EsimView) => void;
  onShowCodes: () => void;
}

/** "Not working?": the one most likely cause of an eSIM's trouble and its fix, in this phone's words (diagnosis.ts). */
export default function DiagnosisPanel({ esim, locale, now, paths, messages: m, offline, onRead, onShowCodes }: Props) {
  const headingId = useId();
  // Opened: the eSIM's state read again from the partner. The last known state answers meanwhile,
  // and stays when the read fails (the API keeps to once a minute per eSIM).
  useEffect(() => {
    if (offline) return;
    let current = true;
    diagnoseEsim(esim.id, locale).then(
      (read) => current && onRead(read),
      () => {},
    );
    return () => {
      current = false;
    };
    // Once per opening: a new answer must not ask again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [esim.id, offline]);
  const system = useDevice()?.system ?? 'other';
  const { cause, steps, action } = diagnose(esim, now);
  // Replaced: the button is gone, so focus moves to what the panel says now.
  const title = useRef<HTMLHeadingElement>(null);
  const [focusTitle, setFocusTitle] = useState(false);
  useEffect(() => {
    if (!focusTitle) return;
    title.current?.focus();
    setFocusTitle(false);
  }, [focusTitle, cause]);
  const data = esim.plan.data;
  const text = m.diagnosis.causes[cause];
  const values = {
    amount: formatDataAmount(esim.plan.metadata.dataAmount, locale),
    speed: data && data.kind !== 'total' && data.after !== 'cut' ? formatSpeed(data.after.slowedToKbps, locale) : '',
    used: formatBytes(esim.usage?.usedBytes ?? 0, locale),
  };
  const stepTexts = fixStepTexts(steps, system, m);
  const link = 'font-semibold text-brand underline';
  return (
    <section aria-labelledby={headingId} className="mt-4 rounded-xl border border-line p-4" data-diagnosis={cause}>
      <p className="text-sm text-ink-muted">{m.diagnosis.heading}</p>
      <h3 id={headingId} ref={title} tabIndex={-1} className="font-semibold">
        {fill(text.title, values)}
      </h3>
      <p className="mt-1">{fill(text.fix, values)}</p>
      {stepTexts.length > 0 && (
        <ol className="mt-3 list-decimal space-y-2 ps-5" data-diagnosis-steps={system}>
          {stepTexts.map((step, i) => (
            <li key={steps[i]}>
              {step}
              {steps[i] === 'apn' && esim.install?.apn && <ApnCode apn={esim.install.apn} messages={m.checklist} />}
            </li>
          ))}
        </ol>
      )}
      {action === 'showCodes' && esim.install && (
        <button type="button" onClick={onShowCodes} className="mt-3 rounded-full border border-line px-4 py-2 text-sm font-semibold">
          {m.showCodes}
        </button>
      )}
      {action === 'buy' && (
        <a href={`${paths.package}/${esim.destination.code.toLowerCase()}`} className={`mt-3 inline-block ${link}`}>
          {m.diagnosis.buy}
        </a>
      )}
      {/* Never downloaded or deleted before use: a new eSIM at our cost (the deleted cause's own action; beside the codes otherwise). */}
      {esim.replaceable && !offline && (action === 'replace' || action === 'showCodes') && (
        <ReplaceOffer
          esim={esim}
          locale={locale}
          messages={m}
          onReplaced={(old) => {
            onRead(old);
            setFocusTitle(true);
          }}
        />
      )}
      {action === 'support' && (
        <a href={paths.support} className={`mt-3 inline-block ${link}`}>
          {m.contactSupport}
        </a>
      )}
      {!offline && (
        <a href={`${paths.chat}?esim=${encodeURIComponent(esim.id)}&cause=${cause}`} className={`mt-3 block ${link}`} data-diagnosis-ask>
          {m.diagnosis.askUs}
        </a>
      )}
      <p className="mt-3 text-xs text-ink-muted">{m.diagnosis.basis}</p>
    </section>
  );
}

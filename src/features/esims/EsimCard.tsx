import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { EsimView } from '../../contract/shop-api.ts';
import { formatOrderDate } from '../../shop-client/order-format.ts';
import ConnectChecklist from './ConnectChecklist.tsx';
import DiagnosisPanel from './DiagnosisPanel.tsx';
import { saveExchangeIntent } from './exchange-intent.ts';
import InstallCodes from './InstallCodes.tsx';
import InstallStepLine from './InstallStepLine.tsx';
import type { EsimCardMessages, MyEsimsPaths } from './my-esims-messages.ts';
import { needsConnecting } from './needs-connecting.ts';
import { isPaused } from './paused.ts';
import RefundDialog from './RefundDialog.tsx';
import TopUpOffer from './TopUpOffer.tsx';
import AutoTopUps from '../auto-top-ups/AutoTopUps.tsx';
import TravellerShare from '../travellers/TravellerShare.tsx';
import UsageBar from './UsageBar.tsx';
import PlanLine from './PlanLine.tsx';

interface Props {
  esim: EsimView;
  locale: Locale;
  paths: MyEsimsPaths;
  messages: EsimCardMessages;
  /** Read from the device while offline: the install codes open, nothing that needs the API is offered. */
  offline: boolean;
  /** The eSIM as the API answered an action on it (a refund, the diagnosis' fresh read). */
  onChanged: (esim: EsimView) => void;
  /** The live status' clock (MyEsims): when the page last looked. */
  now: number;
}

/** Status badges: the states a traveller acts on stand out; the ended ones are quiet. */
const BADGE: Record<EsimView['status'], string> = {
  preparing: 'bg-surface-muted',
  ready: 'bg-brand text-brand-ink',
  active: 'bg-green-100 text-green-900 dark:bg-green-900 dark:text-green-100',
  suspended: 'bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100',
  used_up: 'bg-surface-muted',
  expired: 'bg-surface-muted',
  refunding: 'bg-surface-muted',
  refunded: 'bg-surface-muted',
  replaced: 'bg-surface-muted',
};

/** A button that shows and hides the part of the card it controls (the install codes, the diagnosis). */
function DisclosureButton({
  open,
  controls,
  onToggle,
  children,
  ...data
}: { open: boolean; controls: string; onToggle: (open: boolean) => void; children: ReactNode } & Record<`data-${string}`, boolean>) {
  return (
    <button
      type="button"
      aria-expanded={open}
      aria-controls={controls}
      onClick={() => onToggle(!open)}
      className="rounded-full border border-line px-4 py-2 text-sm font-semibold"
      {...data}
    >
      {children}
    </button>
  );
}

/** States in which a traveller may still want more data on the eSIM. */
const LIVE: ReadonlySet<EsimView['status']> = new Set(['ready', 'active', 'used_up']);

/** One eSIM in My eSIMs: destination, plan, status, data use, validity, order number, and what can be done with it. */
export default function EsimCard({ esim, locale, paths, messages: m, offline, onChanged, now }: Props) {
  const headingId = useId();
  const codesId = useId();
  const [codesOpen, setCodesOpen] = useState(false);
  const [refundNotice, setRefundNotice] = useState(false);
  const notice = useRef<HTMLParagraphElement>(null);
  const diagnosisId = useId();
  const [diagnosisOpen, setDiagnosisOpen] = useState(false);
  const codes = useRef<HTMLDivElement>(null);
  const [codesAsked, setCodesAsked] = useState(false);
  const pausedId = useId();
  const paused = isPaused(esim);

  function refunded(updated: EsimView) {
    onChanged(updated);
    setCodesOpen(false);
    setCodesAsked(false);
    setRefundNotice(true);
  }
  // The refund button is gone: the confirmation takes the focus, so it is read out and the place is kept.
  useEffect(() => {
    if (refundNotice) notice.current?.focus();
  }, [refundNotice]);
  // The diagnosis' "Show install codes" opens them and takes the reader there.
  useEffect(() => {
    if (codesAsked) codes.current?.focus();
  }, [codesAsked]);

  return (
    <li className="rounded-2xl border border-line p-4" aria-labelledby={headingId} data-esim={esim.id} data-status={esim.status}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={headingId} className="flex items-center gap-2 text-lg font-semibold" data-destination>
          <img src={esim.destination.flag} alt="" width="30" height="20" className="rounded-sm border border-line" />
          {esim.destination.name}
        </h2>
        <span className={`rounded-full px-3 py-1 text-sm font-medium ${BADGE[esim.status]}`} data-esim-status>
          {m.statuses[esim.status]}
        </span>
      </div>
      {esim.traveller && (
        <p className="mt-1 text-sm font-medium" data-traveller-label>
          {fill(m.traveller.label, { name: esim.traveller.name })}
        </p>
      )}
      {/* Paused (issue 46 item 8): what it means and what to do, on the card, as the traveller's page says it. */}
      {paused && (
        <div
          role="group"
          aria-labelledby={pausedId}
          className="mt-3 rounded-xl bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50"
          data-esim-paused
        >
          <h3 id={pausedId} className="font-semibold">
            {m.diagnosis.causes.suspended.title}
          </h3>
          <p>{m.diagnosis.causes.suspended.fix}</p>
          {/* The support form with this eSIM named; offline, the support page. */}
          <a
            href={offline ? paths.support : `${paths.chat}?esim=${encodeURIComponent(esim.id)}&cause=suspended`}
            className="mt-1 inline-block font-semibold underline"
          >
            {m.contactSupport}
          </a>
        </div>
      )}
      <InstallStepLine esim={esim} now={now} supportPath={paths.support} messages={m} />
      <PlanLine plan={esim.plan} locale={locale} template={m.plan} />
      {esim.usage ? (
        <UsageBar usage={esim.usage} locale={locale} label={m.usageLabel} template={m.usage} />
      ) : (
        esim.status === 'preparing' && <p className="mt-3 text-sm text-ink-muted">{m.usagePending}</p>
      )}
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        {esim.expiresAt && (
          <>
            {/* Before installation the date is the last day to install it; after, the end of its validity. */}
            <dt className="text-ink-muted">{esim.status === 'ready' ? m.installBy : m.validUntil}</dt>
            <dd data-valid-until>{formatOrderDate(esim.expiresAt, locale, 'long')}</dd>
          </>
        )}
        <dt className="text-ink-muted">{m.orderNumber}</dt>
        <dd>
          <span dir="ltr" data-order-number>
            {esim.orderNumber}
          </span>
        </dd>
      </dl>
      {esim.install && needsConnecting(esim) && <ConnectChecklist apn={esim.install.apn} messages={m.checklist} />}
      {refundNotice && (
        <p ref={notice} tabIndex={-1} role="status" className="mt-3 rounded-xl bg-surface-muted px-4 py-3 text-sm" data-refund-notice>
          {m.refundRequested}
        </p>
      )}
      <div className="mt-4 flex flex-wrap items-start gap-3">
        {esim.install && (
          <DisclosureButton open={codesOpen} controls={codesId} onToggle={setCodesOpen} data-show-codes>
            {m.showCodes}
          </DisclosureButton>
        )}
        {!offline && !paused && esim.canTopUp && <TopUpOffer esimId={esim.id} locale={locale} checkoutPath={paths.checkout} messages={m} />}
        {/* Said plainly where the top-up would be, while the eSIM is in use or about to be: the partner sells none for its plan. */}
        {esim.topUpSupported === false && LIVE.has(esim.status) && (
          <p className="self-center text-sm text-ink-muted" data-top-up-unsupported>
            {m.topUpUnsupported}
          </p>
        )}
        {!offline && !paused && esim.refundable && <RefundDialog esimId={esim.id} locale={locale} messages={m} onRefunded={refunded} />}
        <DisclosureButton open={diagnosisOpen} controls={diagnosisId} onToggle={setDiagnosisOpen} data-not-working>
          {m.diagnosis.open}
        </DisclosureButton>
      </div>
      {/* Bought for the wrong destination (issue 32 item 5): the store, then checkout names this eSIM (exchange-intent.ts). */}
      {!offline && !paused && esim.refundable && (
        <p className="mt-3 text-sm" data-exchange>
          <a
            href={paths.store}
            onClick={() => saveExchangeIntent({ id: esim.id, destinationName: esim.destination.name })}
            className="font-semibold text-brand underline"
          >
            {m.exchange}
          </a>{' '}
          <span className="text-ink-muted">{m.exchangeHint}</span>
        </p>
      )}
      <div id={diagnosisId} hidden={!diagnosisOpen}>
        {diagnosisOpen && (
          <DiagnosisPanel
            esim={esim}
            locale={locale}
            now={now}
            paths={paths}
            messages={m}
            offline={offline}
            onRead={onChanged}
            onShowCodes={() => {
              setCodesOpen(true);
              setCodesAsked(true);
            }}
          />
        )}
      </div>
      {esim.install && (
        <div id={codesId} ref={codes} tabIndex={-1} hidden={!codesOpen} className="mt-4">
          {codesOpen && <InstallCodes install={esim.install} messages={m.installCodes} guidePath={paths.guide} />}
        </div>
      )}
      {/* Automatic top-ups (issue 49): for an eSIM that can take top-ups now, never from the device's offline copy. */}
      {!offline && !paused && esim.canTopUp && <AutoTopUps esimId={esim.id} locale={locale} messages={m.autoTopUp} />}
      {/* Given to a traveller (issue 33): only an eSIM in use, and never from the device's offline copy. */}
      {!offline && esim.install && (
        <div className="mt-4">
          <TravellerShare esim={esim} locale={locale} messages={m.traveller} onChanged={onChanged} />
        </div>
      )}
    </li>
  );
}

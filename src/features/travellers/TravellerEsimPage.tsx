import { useEffect, useState } from 'react';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { API_BASE_URL } from '../../shop-client/api-base.ts';
import { getTravellerEsim, type TravellerEsimOutcome } from '../../shop-client/shop-client.ts';
import { formatOrderDate } from '../../shop-client/order-format.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import ConnectChecklist from '../esims/ConnectChecklist.tsx';
import InstallCodes from '../esims/InstallCodes.tsx';
import InstallStepLine from '../esims/InstallStepLine.tsx';
import { needsConnecting } from '../esims/needs-connecting.ts';
import UsageBar from '../esims/UsageBar.tsx';
import type { TravellerPageMessages } from './messages.ts';
import { keepTravellerGrant } from './traveller-grant.ts';
import PlanLine from '../esims/PlanLine.tsx';

interface Props {
  locale: Locale;
  paths: { guide: string; support: string; checkout: string };
  messages: TravellerPageMessages;
}

/** How often the page looks again while it is open: the install step moves as the traveller installs. */
const LOOK_AGAIN_MS = 15_000;

/**
 * A traveller's eSIM page (issue 33), opened from their private link with no account: the token is
 * the URL's fragment, which the browser never sends, and goes to the API in a header. It shows their
 * eSIM alone: the install path for the phone it is opened on, where the install is, data and
 * validity, and the get-connected checklist.
 */
export default function TravellerEsimPage({ locale, paths, messages: m }: Props) {
  const [outcome, setOutcome] = useState<TravellerEsimOutcome>();
  const [attempt, setAttempt] = useState(0);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    const token = window.location.hash.slice(1);
    if (!token) {
      setOutcome({ status: 'notFound' });
      return;
    }
    let live = true;
    const look = async (quiet: boolean) => {
      const read = await getTravellerEsim(API_BASE_URL, token, locale);
      // A failed look again keeps what the page shows; the first one says so.
      if (live && (!quiet || read.status !== 'failed')) {
        setOutcome(read);
        setNow(Date.now());
      }
    };
    void look(false);
    const timer = window.setInterval(() => void look(true), LOOK_AGAIN_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [attempt, locale]);

  if (!outcome) return <LoadingStatus>{m.loading}</LoadingStatus>;
  if (outcome.status !== 'found') {
    return (
      <LoadFailed
        text={outcome.status === 'notFound' ? m.notFound : m.failed}
        retryLabel={m.retry}
        onRetry={outcome.status === 'failed' ? () => setAttempt(attempt + 1) : undefined}
        data-traveller-missing={outcome.status}
      />
    );
  }

  const { esim } = outcome;
  return (
    <section aria-labelledby="traveller-esim" className="rounded-2xl border border-line p-4" data-traveller-esim data-status={esim.status}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="traveller-esim" className="flex items-center gap-2 text-lg font-semibold">
          <img src={esim.destination.flag} alt="" width="30" height="20" className="rounded-sm border border-line" />
          {fill(m.heading, { name: esim.travellerName, destination: esim.destination.name })}
        </h2>
        <span className="rounded-full bg-surface-muted px-3 py-1 text-sm font-medium" data-esim-status>
          {m.statuses[esim.status]}
        </span>
      </div>
      {esim.status === 'suspended' && (
        <div className="mt-3 rounded-xl bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50" data-traveller-paused>
          <p className="font-semibold">{m.paused.title}</p>
          <p>{m.paused.fix}</p>
          <a href={paths.support} className="mt-1 inline-block font-semibold underline">
            {m.contactSupport}
          </a>
        </div>
      )}
      <InstallStepLine esim={esim} now={now} supportPath={paths.support} messages={m} />
      <PlanLine plan={esim.plan} locale={locale} template={m.plan} />
      {esim.usage && <UsageBar usage={esim.usage} locale={locale} label={m.usageLabel} template={m.usage} />}
      {esim.expiresAt && (
        <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 text-sm">
          <dt className="text-ink-muted">{esim.status === 'ready' ? m.installBy : m.validUntil}</dt>
          <dd data-valid-until>{formatOrderDate(esim.expiresAt, locale, 'long')}</dd>
        </dl>
      )}
      {esim.install && needsConnecting(esim) && <ConnectChecklist apn={esim.install.apn} messages={m.checklist} />}
      {esim.install && (
        <div className="mt-4">
          <InstallCodes install={esim.install} messages={m.installCodes} guidePath={paths.guide} labelledBy="traveller-esim" />
        </div>
      )}
      {esim.canTopUp && (
        <div className="mt-4" data-traveller-top-up>
          <p className="text-sm">{m.topUpHint}</p>
          {/* Checkout with ?topUp= lists this eSIM's top-ups; the link's token goes with the tab (traveller-grant.ts). */}
          <a
            href={`${paths.checkout}?topUp=${encodeURIComponent(esim.id)}`}
            onClick={() => keepTravellerGrant(window.location.hash.slice(1))}
            className="mt-2 inline-block rounded-full border border-line px-4 py-2 text-sm font-semibold"
          >
            {m.topUp}
          </a>
        </div>
      )}
      <p className="mt-4 text-sm text-ink-muted">{m.private}</p>
    </section>
  );
}

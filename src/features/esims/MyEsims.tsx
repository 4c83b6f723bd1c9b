import { useEffect, useRef, useState, type ReactNode } from 'react';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { EsimView } from '../../contract/shop-api.ts';
import { firebaseAuth } from '../auth/firebase.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { listEsimSteps, listEsims } from '../../shop-client/shop.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import EsimCard from './EsimCard.tsx';
import type { MyEsimsMessages, MyEsimsPaths } from './my-esims-messages.ts';
import { useLiveSteps } from './use-live-steps.ts';
import { readSavedEsims, saveEsims } from './saved-esims.ts';

interface Props {
  locale: Locale;
  paths: MyEsimsPaths;
  messages: MyEsimsMessages;
  /** The empty state (no eSIMs yet, with the way to the store). */
  children?: ReactNode;
}

type View =
  | { status: 'loading' }
  | { status: 'failed'; text: string }
  /** savedAt: read from this device while offline, as loaded then. */
  | { status: 'ready'; esims: EsimView[]; savedAt?: string };

const newestFirst = (esims: readonly EsimView[]) => [...esims].sort((a, b) => Date.parse(b.purchasedAt) - Date.parse(a.purchasedAt));

/**
 * My eSIMs (issue 15 items 5 to 8): the signed-in traveller's eSIMs with status, data use, validity,
 * install codes, top-up and refund. Each list loaded is kept on the device; without a network the
 * last one is shown, so the install codes open where a traveller lands without data.
 */
export default function MyEsims({ locale, paths, messages: m, children }: Props) {
  const [view, setView] = useState<View>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [uid, setUid] = useState<string>();

  useEffect(() => {
    let stopped = false;
    setView({ status: 'loading' });
    void (async () => {
      const auth = firebaseAuth();
      await auth.authStateReady();
      const user = auth.currentUser?.uid;
      setUid(user);
      const saved = () => (user ? readSavedEsims(user) : undefined);
      // Known to be offline: the device's copy at once, not after the request has failed.
      const offlineCopy = navigator.onLine ? undefined : saved();
      if (offlineCopy) {
        if (!stopped) setView({ status: 'ready', esims: newestFirst(offlineCopy.esims), savedAt: offlineCopy.savedAt });
        return;
      }
      try {
        const list = await listEsims(locale);
        if (user) saveEsims(user, list);
        if (!stopped) setView({ status: 'ready', esims: newestFirst(list.esims) });
      } catch (error) {
        if (stopped) return;
        const copy = error instanceof ShopError && error.kind === 'network' ? saved() : undefined;
        setView(
          copy
            ? { status: 'ready', esims: newestFirst(copy.esims), savedAt: copy.savedAt }
            : { status: 'failed', text: shopErrorText(error, m) },
        );
      }
    })();
    return () => {
      stopped = true;
    };
  }, [attempt, locale, m]);

  // Back online while showing the device's copy: load the current list.
  const offline = view.status === 'ready' && view.savedAt !== undefined;
  // The install steps, live while the page is open (use-live-steps.ts); a new state (a profile
  // allocated, a refund done) loads the whole list again, for its codes and buttons.
  const shown = useRef<EsimView[]>([]);
  useEffect(() => {
    shown.current = view.status === 'ready' ? view.esims : [];
  }, [view]);
  // Loaded again in place (no loading state): the codes of a new eSIM, the buttons of a refunded one.
  const reloadInPlace = () =>
    void listEsims(locale)
      .then((list) => {
        if (uid) saveEsims(uid, list);
        setView({ status: 'ready', esims: newestFirst(list.esims) });
      })
      .catch(() => undefined);
  const now = useLiveSteps(view.status === 'ready' && !offline ? view.esims : undefined, listEsimSteps, (steps) => {
    const current = shown.current;
    if (steps.length !== current.length || steps.some((s) => current.find((e) => e.id === s.id)?.status !== s.status)) {
      reloadInPlace();
      return;
    }
    setView((latest) => {
      if (latest.status !== 'ready') return latest;
      const esims = latest.esims.map((esim) => {
        const step = steps.find((s) => s.id === esim.id);
        return step && (step.installStep !== esim.installStep || step.installStepAt !== esim.installStepAt)
          ? { ...esim, installStep: step.installStep, installStepAt: step.installStepAt }
          : esim;
      });
      return esims.every((esim, i) => esim === latest.esims[i]) ? latest : { ...latest, esims };
    });
  });

  if (view.status === 'loading') return <LoadingStatus>{m.loading}</LoadingStatus>;
  if (view.status === 'failed') {
    return <LoadFailed text={view.text} retryLabel={m.retry} onRetry={() => setAttempt(attempt + 1)} className="mt-6" data-esims-error />;
  }
  if (view.esims.length === 0) return <>{children}</>;

  function replace(updated: EsimView) {
    if (view.status !== 'ready') return;
    const esims = view.esims.map((esim) => (esim.id === updated.id ? updated : esim));
    setView({ ...view, esims });
    // The device's copy follows, so offline it does not offer a refund that was asked for.
    if (uid) saveEsims(uid, { esims });
    // Replaced at our cost: the list again, with the new eSIM.
    if (updated.status === 'replaced') reloadInPlace();
  }

  return (
    <div className="mt-6 max-w-2xl">
      {view.savedAt && (
        <p role="status" className="mb-4 rounded-xl bg-surface-muted px-4 py-3" data-esims-offline>
          {fill(m.offline, {
            time: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(view.savedAt)),
          })}
        </p>
      )}
      <ul aria-label={m.listLabel} className="space-y-4" data-esims>
        {view.esims.map((esim) => (
          <EsimCard key={esim.id} esim={esim} locale={locale} paths={paths} messages={m} offline={offline} onChanged={replace} now={now} />
        ))}
      </ul>
    </div>
  );
}

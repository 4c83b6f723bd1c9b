import { useEffect, useRef, useState } from 'react';
// The zod-free module: the contract's schemas stay out of the page.
import { ALERT_CHANNELS, ALERT_KIND_CHANNELS, ALERT_KINDS, type AlertChannel, type AlertKind } from '../../contract/alert-kinds.ts';
import type { AlertPreferences } from '../../contract/shop-api.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import RetryButton from '../../ui/RetryButton.tsx';
import { getAlertPreferences, saveAlertPreferences } from '../../shop-client/shop.ts';
import type { AlertsCardMessages } from './profile-panel-messages.ts';
import ToggleSwitch from './ToggleSwitch.tsx';
import { useOnline } from './use-online.ts';

type SaveStatus = 'idle' | 'saving' | 'saved' | 'failed';

/**
 * Which alerts go by e-mail and by push, saved on the server for every device. Each change saves
 * the whole set at once, in order; a failed save puts the switches back to what the server has.
 * Offline the last loaded state stays, switched off from changes, with a note.
 */
export default function AlertPreferencesGrid({ m }: { m: AlertsCardMessages }) {
  const online = useOnline();
  const [shown, setShown] = useState<AlertPreferences>();
  const [loadFailed, setLoadFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [status, setStatus] = useState<SaveStatus>('idle');
  /** What the server last confirmed, and the saves in flight (one after another, the latest wins). */
  const stored = useRef<AlertPreferences>(undefined);
  const saves = useRef(Promise.resolve());
  const latest = useRef(0);

  useEffect(() => {
    let live = true;
    setLoadFailed(false);
    getAlertPreferences().then(
      (preferences) => {
        if (!live) return;
        stored.current = preferences;
        setShown(preferences);
      },
      () => live && setLoadFailed(true),
    );
    return () => {
      live = false;
    };
  }, [attempt]);

  // Back online after a failed load: load again by itself.
  useEffect(() => {
    if (online && loadFailed) setAttempt((n) => n + 1);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only on coming back online
  }, [online]);

  function change(kind: AlertKind, channel: AlertChannel, on: boolean) {
    if (!shown) return;
    const wanted = { ...shown, [kind]: { ...shown[kind], [channel]: on } } as AlertPreferences;
    setShown(wanted);
    setStatus('saving');
    const save = ++latest.current;
    saves.current = saves.current
      .then(() => saveAlertPreferences(wanted))
      .then(
        (preferences) => {
          stored.current = preferences;
          if (save === latest.current) {
            setShown(preferences);
            setStatus('saved');
          }
        },
        () => {
          if (save !== latest.current) return;
          setShown(stored.current);
          setStatus('failed');
        },
      );
  }

  const kindLabel = (kind: AlertKind) => m.alerts.kinds[kind];
  const channelLabel = (channel: AlertChannel) => (channel === 'email' ? m.alerts.email : m.alerts.push);
  const statusText = { idle: '', saving: m.alerts.saving, saved: m.alerts.saved, failed: m.alerts.saveFailed }[status];

  if (!shown) {
    if (!loadFailed) return <LoadingStatus>{m.alerts.loading}</LoadingStatus>;
    return (
      <div role="alert" className="mt-4 text-sm">
        <p>{online ? m.alerts.loadFailed : m.alerts.offline}</p>
        <RetryButton label={m.alerts.retry} onRetry={() => setAttempt((n) => n + 1)} />
      </div>
    );
  }
  return (
    <div className="mt-4">
      <table className="w-full text-start">
        <caption className="text-start font-semibold">{m.alerts.grid}</caption>
        <thead>
          <tr className="text-sm text-ink-muted">
            <th scope="col" className="py-2 text-start font-normal">
              {m.alerts.alert}
            </th>
            {ALERT_CHANNELS.map((channel) => (
              <th key={channel} scope="col" className="w-20 py-2 text-center font-normal">
                {channelLabel(channel)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {ALERT_KINDS.map((kind) => (
            <tr key={kind} data-alert-kind={kind}>
              <th scope="row" className="py-2 text-start font-normal">
                {kindLabel(kind)}
              </th>
              {ALERT_CHANNELS.map((channel) => (
                <td key={channel} className="py-2 text-center">
                  {ALERT_KIND_CHANNELS[kind].includes(channel) ? (
                    <span className="inline-flex">
                      <ToggleSwitch
                        // The dash reads the same in every language: 80 % of data used — E-mail.
                        label={`${kindLabel(kind)} — ${channelLabel(channel)}`}
                        checked={shown[kind][channel]}
                        disabled={!online}
                        onChange={(on) => change(kind, channel, on)}
                      />
                    </span>
                  ) : (
                    <span className="block text-xs leading-snug text-ink-muted">{m.alerts.orderEmail}</span>
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="mt-2 text-sm text-ink-muted">{m.alerts.pushNote}</p>
      {!online && <p className="mt-2 rounded-xl bg-surface-muted px-4 py-3 text-sm">{m.alerts.offline}</p>}
      <p role="status" className={`mt-2 text-sm ${status === 'failed' ? 'text-red-700 dark:text-red-300' : 'text-ink-muted'}`}>
        {statusText}
      </p>
    </div>
  );
}

import { useEffect, useState } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import RetryButton from '../../ui/RetryButton.tsx';
import { deviceSubscription, refreshDeviceSubscription, subscribeDevice, unsubscribeDevice } from './device-push.ts';
import InstallOnIphone from './InstallOnIphone.tsx';
import type { AlertsCardMessages } from './profile-panel-messages.ts';
import { pushAvailability, thisBrowser, type PushAvailability } from './push-availability.ts';
import SettingSwitch from './SettingSwitch.tsx';

const EXPLAINED = 'push-device-explained';

/**
 * This device's push switch: on while the browser holds a subscription for the site. Turning it
 * on asks for permission (on the click, as browsers require), subscribes and stores the
 * subscription; off removes it. Where push cannot work the switch stays off and says why.
 */
export default function DevicePushSwitch({ m, lang }: { m: AlertsCardMessages; lang: Locale }) {
  const [availability, setAvailability] = useState<PushAvailability>();
  /** Undefined until the worker has answered (after hydration: the server cannot know). */
  const [subscribed, setSubscribed] = useState<boolean>();
  const [busy, setBusy] = useState(false);
  /** The change that failed, for the retry. */
  const [failed, setFailed] = useState<boolean>();

  useEffect(() => {
    const found = pushAvailability(thisBrowser());
    setAvailability(found);
    if (found !== 'available' && found !== 'denied') return;
    let live = true;
    deviceSubscription().then(
      (subscription) => {
        if (!live) return;
        setSubscribed(subscription !== null);
        // Stored again: it follows this page's language and the account signed in now (a later visit tries again).
        if (subscription)
          refreshDeviceSubscription(subscription, lang).catch(async () => {
            // A replacement that failed half-way leaves none: show what the browser holds.
            const held = await deviceSubscription();
            if (live) setSubscribed(held !== null);
          });
      },
      () => live && setSubscribed(false),
    );
    return () => {
      live = false;
    };
  }, [lang]);

  async function change(on: boolean) {
    setBusy(true);
    setFailed(undefined);
    try {
      if (on) {
        // First, still inside the click: browsers ask only on a user's gesture.
        const permission = await Notification.requestPermission();
        if (permission !== 'granted') {
          if (permission === 'denied') setAvailability('denied');
          return;
        }
        await subscribeDevice(lang);
      } else {
        await unsubscribeDevice();
      }
      setSubscribed(on);
    } catch {
      setFailed(on);
    } finally {
      setBusy(false);
    }
  }

  const explanation =
    availability === 'unsupported' ? m.alerts.unsupported : availability === 'denied' && !subscribed ? m.alerts.denied : undefined;
  const usable = availability === 'available' || (availability === 'denied' && subscribed);
  return (
    <div className="mt-3 border-t border-line pt-2">
      <SettingSwitch
        id="push-this-device"
        label={m.alerts.thisDevice}
        checked={subscribed ?? false}
        disabled={!usable || subscribed === undefined || busy}
        describedBy={explanation || availability === 'installFirst' ? EXPLAINED : undefined}
        onChange={(on) => void change(on)}
      />
      {availability === 'installFirst' && <InstallOnIphone m={m} id={EXPLAINED} />}
      {explanation && (
        <p id={EXPLAINED} className="text-sm text-ink-muted">
          {explanation}
        </p>
      )}
      <p role="status" className="text-sm text-ink-muted empty:hidden">
        {subscribed === undefined || busy || failed !== undefined ? '' : subscribed ? m.alerts.deviceOn : m.alerts.deviceOff}
      </p>
      {failed !== undefined && (
        <div className="mt-2">
          <ErrorBox message={m.alerts.deviceFailed} />
          <RetryButton label={m.alerts.retry} onRetry={() => void change(failed)} />
        </div>
      )}
    </div>
  );
}

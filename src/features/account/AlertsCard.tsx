import { useEffect, useRef } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import AlertPreferencesGrid from './AlertPreferencesGrid.tsx';
import DevicePushSwitch from './DevicePushSwitch.tsx';
import { PROFILE_CARD_CLASS } from './profile-card.ts';
import type { AlertsCardMessages } from './profile-panel-messages.ts';

/** The alerts (issue 23): push on this device, and which alerts go by e-mail and push. The alert e-mails link to #alerts. */
export default function AlertsCard({ m, lang }: { m: AlertsCardMessages; lang: Locale }) {
  // The card appears once the session is known, after the browser looked for #alerts: go there now.
  const card = useRef<HTMLElement>(null);
  useEffect(() => {
    if (window.location.hash === '#alerts') card.current?.scrollIntoView();
  }, []);
  return (
    <section ref={card} id="alerts" className={`${PROFILE_CARD_CLASS} scroll-mt-20`} aria-labelledby="alerts-heading">
      <h2 id="alerts-heading" className="text-lg font-semibold">
        {m.alerts.title}
      </h2>
      <p className="mt-1 text-sm text-ink-muted">{m.alerts.intro}</p>
      <DevicePushSwitch m={m} lang={lang} />
      <AlertPreferencesGrid m={m} />
    </section>
  );
}

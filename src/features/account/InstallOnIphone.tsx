import type { AlertsCardMessages } from './profile-panel-messages.ts';

/**
 * How to add the app to an iPhone's home screen, where Safari allows Web Push (iOS 16.4 or later).
 * The site's install prompt (src/features/pwa/InstallPrompt.astro) answers only Chromium's
 * install event: Safari has none, so the steps are written out.
 */
export default function InstallOnIphone({ m, id }: { m: AlertsCardMessages; id: string }) {
  return (
    <div id={id} className="mt-2 rounded-xl bg-surface-muted px-4 py-3 text-sm">
      <p>{m.alerts.installFirst}</p>
      <p className="mt-2 font-semibold">{m.alerts.installTitle}</p>
      <ol className="mt-1 list-decimal space-y-1 ps-5">
        <li>{m.alerts.installShare}</li>
        <li>{m.alerts.installAdd}</li>
        <li>{m.alerts.installOpen}</li>
      </ol>
    </div>
  );
}

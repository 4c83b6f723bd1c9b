import { useEffect, useState } from 'react';
import { PROFILE_CARD_CLASS } from './profile-card.ts';
import type { SettingsCardMessages } from './profile-panel-messages.ts';
import SettingSwitch from './SettingSwitch.tsx';
import { DEFAULT_SETTINGS, readSettings, writeDarkMode } from './settings.ts';

/** This device's settings: dark mode (push notifications are in the alerts card). */
export default function SettingsCard({ m }: { m: SettingsCardMessages }) {
  // Local settings are read after hydration: the server cannot know them.
  const [settings, setSettings] = useState(DEFAULT_SETTINGS);
  useEffect(() => setSettings(readSettings()), []);
  const { dark, storable } = settings;
  return (
    <section className={PROFILE_CARD_CLASS} aria-labelledby="settings-heading">
      <h2 id="settings-heading" className="text-lg font-semibold">
        {m.profile.settings}
      </h2>
      <div className="mt-2 divide-y divide-line">
        <SettingSwitch
          id="setting-dark"
          label={m.profile.darkMode}
          checked={dark}
          onChange={(on) => setSettings({ ...settings, dark: on, storable: writeDarkMode(on) })}
        />
      </div>
      {/* Always in the page, so screen readers announce the text when blocked storage is found. */}
      <div role="status">{!storable && <p className="mt-2 text-sm text-ink-muted">{m.profile.settingsNotSaved}</p>}</div>
    </section>
  );
}

import { useStore } from '@nanostores/react';
import type { Locale } from '../../i18n/locales.ts';
import { $session } from '../auth/session.ts';
import SavedCardCard from '../auto-top-ups/SavedCardCard.tsx';
import AccountCard from './AccountCard.tsx';
import AlertsCard from './AlertsCard.tsx';
import DangerCard from './DangerCard.tsx';
import PasswordCard from './PasswordCard.tsx';
import type { ProfilePanelMessages } from './profile-panel-messages.ts';
import SettingsCard from './SettingsCard.tsx';
import { usesPassword } from './sign-in-methods.ts';

interface Props {
  messages: ProfilePanelMessages;
  homePath: string;
  /** My eSIMs, where automatic top-ups (and so a saved card) are turned on. */
  myEsimsPath: string;
  /** The page's language: this device's push notifications come in it. */
  lang: Locale;
}

/** The profile's account part: name, e-mail and its confirmation, password, alerts, saved card, settings, delete, log out. */
export default function ProfilePanel({ messages: m, homePath, myEsimsPath, lang }: Props) {
  const session = useStore($session);
  if (session.status !== 'signedIn') return null;
  const { user } = session;
  return (
    <div className="space-y-6">
      <AccountCard user={user} m={m} />
      {usesPassword(user) && <PasswordCard user={user} m={m} />}
      <AlertsCard m={m} lang={lang} />
      <SavedCardCard m={m} locale={lang} myEsimsPath={myEsimsPath} />
      <SettingsCard m={m} />
      <DangerCard user={user} m={m} homePath={homePath} />
    </div>
  );
}

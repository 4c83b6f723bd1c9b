import { useStore } from '@nanostores/react';
import {
  EmailAuthProvider,
  reauthenticateWithCredential,
  reauthenticateWithPopup,
  GoogleAuthProvider,
  OAuthProvider,
  sendEmailVerification,
  signOut,
  updatePassword,
  updateProfile,
  type User,
} from 'firebase/auth';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { RECENT_SIGN_IN_MS } from '../../config/constants.ts';
import { firebaseAuth } from '../auth/firebase.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import Field from '../../ui/Field.tsx';
import Notice from '../../ui/Notice.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import type { AuthMessages } from '../auth/messages.ts';
import { fill } from '../../i18n/fill.ts';
import { $session, endSession, refreshSession } from '../auth/session.ts';
import { useAuthAction } from '../auth/useAuthAction.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { deleteMe } from '../../shop-client/shop.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { validateNewPassword } from '../auth/validation.ts';
import { DEFAULT_SETTINGS, readSettings, writeDarkMode, writePush } from './settings.ts';

interface Props {
  messages: AuthMessages;
  homePath: string;
}

const card = 'rounded-2xl border border-line p-5';
const usesPassword = (user: User) => user.providerData.some((p) => p.providerId === 'password');

/** Firebase deletes an account only within five minutes of a sign-in; a minute's margin for the way there. */
async function signedInRecently(user: User): Promise<boolean> {
  const { authTime } = await user.getIdTokenResult();
  return Date.now() - Date.parse(authTime) < RECENT_SIGN_IN_MS - 60_000;
}

/** The profile's account part: name, e-mail and its confirmation, password, settings, delete, log out. */
export default function ProfilePanel({ messages: m, homePath }: Props) {
  const session = useStore($session);
  if (session.status !== 'signedIn') return null;
  const { user } = session;
  return (
    <div className="space-y-6">
      <AccountCard user={user} m={m} />
      {usesPassword(user) && <PasswordCard user={user} m={m} />}
      <SettingsCard m={m} />
      <DangerCard user={user} m={m} homePath={homePath} />
    </div>
  );
}

function AccountCard({ user, m }: { user: User; m: AuthMessages }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(user.displayName ?? '');
  const [notice, setNotice] = useState<string>();
  const { busy, error, run } = useAuthAction(m, m.profile.updateFailed);

  function save(event: FormEvent) {
    event.preventDefault();
    void run(async () => {
      await updateProfile(user, { displayName: name.trim() });
      refreshSession(user);
      setEditing(false);
      setNotice(m.profile.updated);
    });
  }
  const resend = () =>
    run(async () => {
      await sendEmailVerification(user);
      setNotice(fill(m.profile.verificationSent, { email: user.email ?? '' }));
    });

  return (
    <section className={card} aria-labelledby="account-heading">
      <h2 id="account-heading" className="text-xl font-bold" data-display-name>
        {user.displayName || user.email}
      </h2>
      <p className="text-ink-muted" data-email>{user.email}</p>
      <p className="mt-2 text-sm" data-email-verified={user.emailVerified}>
        {user.emailVerified ? m.profile.emailVerified : m.profile.emailNotVerified}
      </p>
      {!user.emailVerified && (
        <button type="button" className="mt-2 text-sm font-semibold text-brand underline" disabled={busy} onClick={resend}>
          {m.profile.resendVerification}
        </button>
      )}
      {editing ? (
        <form onSubmit={save} className="mt-4 space-y-3">
          <Field id="display-name" label={m.fields.displayName} type="text" autoComplete="name" value={name} onChange={setName} required={false} />
          <div className="flex gap-3">
            <button type="submit" disabled={busy} className="rounded-full bg-brand px-5 py-2 font-semibold text-brand-ink">{m.profile.save}</button>
            <button type="button" onClick={() => setEditing(false)} className="rounded-full border border-line px-5 py-2 font-semibold">{m.profile.cancel}</button>
          </div>
        </form>
      ) : (
        <button type="button" onClick={() => { setEditing(true); setNotice(undefined); }} className="mt-4 rounded-full border border-line px-4 py-2 text-sm font-semibold">
          {m.profile.editName}
        </button>
      )}
      <div className="mt-3 space-y-2">
        <ErrorBox message={error} />
        {notice && <Notice>{notice}</Notice>}
      </div>
    </section>
  );
}

function PasswordCard({ user, m }: { user: User; m: AuthMessages }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, setError, run } = useAuthAction(m, m.errors.generic);

  function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    const invalid = current === '' ? 'passwordRequired' : validateNewPassword(next, confirm);
    if (invalid) return setError(m.validation[invalid]);
    void run(async () => {
      await reauthenticateWithCredential(user, EmailAuthProvider.credential(user.email ?? '', current));
      await updatePassword(user, next);
      setCurrent('');
      setNext('');
      setConfirm('');
      setDone(true);
    });
  }

  return (
    <section className={card} aria-labelledby="password-heading">
      <h2 id="password-heading" className="text-lg font-semibold">{m.profile.changePassword}</h2>
      <form noValidate onSubmit={submit} className="mt-4 space-y-4">
        <Field id="current-password" label={m.fields.currentPassword} type="password" autoComplete="current-password" value={current} onChange={setCurrent} />
        <Field id="new-password" label={m.fields.newPassword} type="password" autoComplete="new-password" value={next} onChange={setNext} />
        <Field id="confirm-new-password" label={m.fields.confirmNewPassword} type="password" autoComplete="new-password" value={confirm} onChange={setConfirm} />
        <ErrorBox message={error} />
        {done && <Notice>{m.profile.passwordChanged}</Notice>}
        <SubmitButton busy={busy} label={m.profile.changePassword} busyLabel={m.profile.changePassword} />
      </form>
    </section>
  );
}

function Switch({ id, label, checked, onChange }: { id: string; label: string; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <div className="flex items-center justify-between gap-4 py-2">
      <span id={`${id}-label`}>{label}</span>
      <button
        type="button"
        role="switch"
        id={id}
        aria-checked={checked}
        aria-labelledby={`${id}-label`}
        onClick={() => onChange(!checked)}
        className="relative h-7 w-12 shrink-0 rounded-full bg-line transition-colors aria-checked:bg-brand"
      >
        <span aria-hidden="true" className={`absolute top-1 size-5 rounded-full bg-white shadow transition-all ${checked ? 'start-6' : 'start-1'}`} />
      </button>
    </div>
  );
}

function SettingsCard({ m }: { m: AuthMessages }) {
  // Local settings are read after hydration: the server cannot know them.
  const [settings, setSettings] = useState(DEFAULT_SETTINGS);
  useEffect(() => setSettings(readSettings()), []);
  const { dark, push, storable } = settings;
  return (
    <section className={card} aria-labelledby="settings-heading">
      <h2 id="settings-heading" className="text-lg font-semibold">{m.profile.settings}</h2>
      <div className="mt-2 divide-y divide-line">
        <Switch id="setting-push" label={m.profile.push} checked={push} onChange={(on) => setSettings({ ...settings, push: on, storable: writePush(on) })} />
        <Switch id="setting-dark" label={m.profile.darkMode} checked={dark} onChange={(on) => setSettings({ ...settings, dark: on, storable: writeDarkMode(on) })} />
      </div>
      {/* Always in the page, so screen readers announce the text when blocked storage is found. */}
      <div role="status">{!storable && <p className="mt-2 text-sm text-ink-muted">{m.profile.settingsNotSaved}</p>}</div>
    </section>
  );
}

function DangerCard({ user, m, homePath }: { user: User; m: AuthMessages; homePath: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [needsPassword, setNeedsPassword] = useState(false);
  const [password, setPassword] = useState('');
  const { busy, error, setError, run } = useAuthAction(m, m.errors.generic);

  async function reauthenticate(): Promise<boolean> {
    if (usesPassword(user)) {
      // Asks for the password first; the next press signs in again with it.
      if (!needsPassword) {
        setNeedsPassword(true);
        setError(m.profile.reauthText);
        return false;
      }
      await reauthenticateWithCredential(user, EmailAuthProvider.credential(user.email ?? '', password));
      return true;
    }
    const provider = user.providerData[0]?.providerId === 'apple.com' ? new OAuthProvider('apple.com') : new GoogleAuthProvider();
    await reauthenticateWithPopup(user, provider);
    return true;
  }

  // Ending the session hands the way home to the guard (endSession): nothing here navigates.
  const remove = () =>
    run(() =>
      endSession(async () => {
        // The shop deletes the account with its data in one step (nothing half-done if it fails);
        // it wants a recent sign-in, so one comes first when the last is old.
        if ((needsPassword || !(await signedInRecently(user))) && !(await reauthenticate())) return;
        try {
          await deleteMe();
        } catch (caught) {
          // The server's clock said the sign-in is too old: sign in again, then retry once.
          if (!(caught instanceof ShopError && caught.kind === 'unauthorized')) {
            setError(shopErrorText(caught, m));
            return;
          }
          if (!(await reauthenticate())) return;
          await deleteMe();
        }
        // Gone on the server: only this device's session is left to end.
        await signOut(firebaseAuth());
      }, homePath),
    );

  const logOut = async () => {
    try {
      await endSession(() => signOut(firebaseAuth()), homePath);
    } catch (caught) {
      console.error('Sign-out failed', caught); // Spec 8: only logged.
      // Still signed in, so the guard stays put: go home as asked all the same.
      if (firebaseAuth().currentUser) window.location.assign(homePath);
    }
  };

  return (
    <section className={card}>
      <div className="flex flex-col gap-3">
        <button type="button" onClick={logOut} className="rounded-full border border-line px-5 py-3 font-semibold">
          {m.profile.logout}
        </button>
        <button type="button" onClick={() => dialog.current?.showModal()} className="rounded-full px-5 py-3 font-semibold text-red-700 dark:text-red-300">
          {m.profile.deleteAccount}
        </button>
      </div>
      <dialog ref={dialog} aria-labelledby="delete-title" className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-3xl bg-surface p-6 text-ink backdrop:bg-black/50">
        <h2 id="delete-title" className="text-lg font-bold">{m.profile.deleteTitle}</h2>
        <p className="mt-2 text-ink-muted">{m.profile.deleteText}</p>
        <p className="mt-2 text-ink-muted">{m.profile.deleteOrders}</p>
        {needsPassword && (
          <div className="mt-4">
            <Field id="delete-password" label={m.fields.password} type="password" autoComplete="current-password" value={password} onChange={setPassword} />
          </div>
        )}
        <div className="mt-4"><ErrorBox message={error} /></div>
        <div className="mt-6 flex flex-wrap justify-end gap-3">
          <button type="button" onClick={() => dialog.current?.close()} className="rounded-full border border-line px-5 py-2 font-semibold">
            {m.profile.cancel}
          </button>
          <button type="button" disabled={busy} onClick={remove} className="rounded-full bg-red-700 px-5 py-2 font-semibold text-white disabled:opacity-70">
            {m.profile.deleteConfirm}
          </button>
        </div>
      </dialog>
    </section>
  );
}

import {
  EmailAuthProvider,
  GoogleAuthProvider,
  OAuthProvider,
  reauthenticateWithCredential,
  reauthenticateWithPopup,
  signOut,
  type User,
} from 'firebase/auth';
import { useRef, useState } from 'react';
import { ShopError } from '../../shop-client/shop-client.ts';
import { deleteMe } from '../../shop-client/shop.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import PasswordField from '../../ui/PasswordField.tsx';
import { firebaseAuth } from '../auth/firebase.ts';
import { endSession } from '../auth/session.ts';
import { useAuthAction } from '../auth/useAuthAction.ts';
import { forgetDevicePush } from './device-push.ts';
import { PROFILE_CARD_CLASS } from './profile-card.ts';
import type { DangerCardMessages } from './profile-panel-messages.ts';
import { signedInRecently, usesPassword } from './sign-in-methods.ts';

/** Log out, and delete the account with its data (after a recent sign-in, as Firebase wants). */
export default function DangerCard({ user, m, homePath }: { user: User; m: DangerCardMessages; homePath: string }) {
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
      await endSession(async () => {
        // While still signed in: the API deletes only the caller's own subscription.
        await forgetDevicePush();
        await signOut(firebaseAuth());
      }, homePath);
    } catch (caught) {
      console.error('Sign-out failed', caught); // Spec 8: only logged.
      // Still signed in, so the guard stays put: go home as asked all the same.
      if (firebaseAuth().currentUser) window.location.assign(homePath);
    }
  };

  return (
    <section className={PROFILE_CARD_CLASS}>
      <div className="flex flex-col gap-3">
        <button type="button" onClick={logOut} className="rounded-full border border-line px-5 py-3 font-semibold">
          {m.profile.logout}
        </button>
        <button
          type="button"
          onClick={() => dialog.current?.showModal()}
          className="rounded-full px-5 py-3 font-semibold text-red-700 dark:text-red-300"
        >
          {m.profile.deleteAccount}
        </button>
      </div>
      <dialog
        ref={dialog}
        aria-labelledby="delete-title"
        className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-3xl bg-surface p-6 text-ink backdrop:bg-black/50"
      >
        <h2 id="delete-title" className="text-lg font-bold">
          {m.profile.deleteTitle}
        </h2>
        <p className="mt-2 text-ink-muted">{m.profile.deleteText}</p>
        <p className="mt-2 text-ink-muted">{m.profile.deleteOrders}</p>
        {needsPassword && (
          <div className="mt-4">
            <PasswordField id="delete-password" label={m.fields.password} value={password} onChange={setPassword} />
          </div>
        )}
        <div className="mt-4">
          <ErrorBox message={error} />
        </div>
        <div className="mt-6 flex flex-wrap justify-end gap-3">
          <button type="button" onClick={() => dialog.current?.close()} className="rounded-full border border-line px-5 py-2 font-semibold">
            {m.profile.cancel}
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={remove}
            className="rounded-full bg-red-700 px-5 py-2 font-semibold text-white disabled:opacity-70"
          >
            {m.profile.deleteConfirm}
          </button>
        </div>
      </dialog>
    </section>
  );
}

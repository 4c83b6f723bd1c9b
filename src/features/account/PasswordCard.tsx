import { EmailAuthProvider, reauthenticateWithCredential, updatePassword, type User } from 'firebase/auth';
import { useState, type FormEvent } from 'react';
import ErrorBox from '../../ui/ErrorBox.tsx';
import PasswordField from '../../ui/PasswordField.tsx';
import Notice from '../../ui/Notice.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import { useAuthAction } from '../auth/useAuthAction.ts';
import { validateNewPassword } from '../auth/validation.ts';
import { PROFILE_CARD_CLASS } from './profile-card.ts';
import type { PasswordCardMessages } from './profile-panel-messages.ts';

/** Changes the password of an account that signs in with one, after confirming the current one. */
export default function PasswordCard({ user, m }: { user: User; m: PasswordCardMessages }) {
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
    <section className={PROFILE_CARD_CLASS} aria-labelledby="password-heading">
      <h2 id="password-heading" className="text-lg font-semibold">
        {m.profile.changePassword}
      </h2>
      <form noValidate onSubmit={submit} className="mt-4 space-y-4">
        <PasswordField id="current-password" label={m.fields.currentPassword} value={current} onChange={setCurrent} />
        <PasswordField id="new-password" label={m.fields.newPassword} isNew value={next} onChange={setNext} />
        <PasswordField id="confirm-new-password" label={m.fields.confirmNewPassword} isNew value={confirm} onChange={setConfirm} />
        <ErrorBox message={error} />
        {done && <Notice>{m.profile.passwordChanged}</Notice>}
        <SubmitButton busy={busy} label={m.profile.changePassword} busyLabel={m.profile.changePassword} />
      </form>
    </section>
  );
}

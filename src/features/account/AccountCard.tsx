import { sendEmailVerification, updateProfile, type User } from 'firebase/auth';
import { useState, type FormEvent } from 'react';
import { fill } from '../../i18n/fill.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import Field from '../../ui/Field.tsx';
import Notice from '../../ui/Notice.tsx';
import { refreshSession } from '../auth/session.ts';
import { useAuthAction } from '../auth/useAuthAction.ts';
import { PROFILE_CARD_CLASS } from './profile-card.ts';
import type { AccountCardMessages } from './profile-panel-messages.ts';

/** Name, e-mail and its confirmation: the name can be edited, the confirmation e-mail sent again. */
export default function AccountCard({ user, m }: { user: User; m: AccountCardMessages }) {
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
    <section className={PROFILE_CARD_CLASS} aria-labelledby="account-heading">
      <h2 id="account-heading" className="text-xl font-bold" data-display-name>
        {user.displayName || user.email}
      </h2>
      <p className="text-ink-muted" data-email>
        {user.email}
      </p>
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
          <Field
            id="display-name"
            label={m.fields.displayName}
            type="text"
            autoComplete="name"
            value={name}
            onChange={setName}
            required={false}
          />
          <div className="flex gap-3">
            <button type="submit" disabled={busy} className="rounded-full bg-brand px-5 py-2 font-semibold text-brand-ink">
              {m.profile.save}
            </button>
            <button type="button" onClick={() => setEditing(false)} className="rounded-full border border-line px-5 py-2 font-semibold">
              {m.profile.cancel}
            </button>
          </div>
        </form>
      ) : (
        <button
          type="button"
          onClick={() => {
            setEditing(true);
            setNotice(undefined);
          }}
          className="mt-4 rounded-full border border-line px-4 py-2 text-sm font-semibold"
        >
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

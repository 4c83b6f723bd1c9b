import { useStore } from '@nanostores/react';
import { createUserWithEmailAndPassword, sendEmailVerification } from 'firebase/auth';
import { useEffect, useState, type FormEvent } from 'react';
import { firebaseAuth } from './firebase.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import Field from '../../ui/Field.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import type { SignupFormMessages } from './signup-form-messages.ts';
import { ProviderButtons } from './ProviderButtons.tsx';
import { safeNext } from './redirect.ts';
import { $session } from './session.ts';
import { useAuthAction } from './useAuthAction.ts';
import { validateEmail, validateNewPassword } from './validation.ts';

interface Props {
  messages: SignupFormMessages;
  profilePath: string;
  loginPath: string;
}

/** Sign-up (spec 2 and 5): validated before any request; sends the confirmation e-mail (spec 4). */
export default function SignupForm({ messages: m, profilePath, loginPath }: Props) {
  const session = useStore($session);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [creating, setCreating] = useState(false);
  const { busy, error, setError, run } = useAuthAction(m, m.errors.signupFailed);
  useEffect(() => {
    // A visitor who is already signed in has nothing to sign up for; a new account goes on once
    // the confirmation e-mail is sent. The form's only navigation, so signing up never starts two.
    if (session.status === 'signedIn' && !creating) window.location.replace(safeNext(window.location, profilePath));
  }, [session.status, creating, profilePath]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const invalid = validateEmail(email) ?? validateNewPassword(password, confirm);
    if (invalid) return setError(m.validation[invalid]);
    setCreating(true);
    void run(async () => {
      try {
        const { user } = await createUserWithEmailAndPassword(firebaseAuth(), email.trim(), password);
        await sendEmailVerification(user, { url: new URL(profilePath, window.location.origin).href });
      } finally {
        setCreating(false);
      }
    });
  }

  return (
    <div className="space-y-6">
      <form noValidate onSubmit={submit} className="space-y-4">
        <Field id="email" label={m.fields.email} type="email" autoComplete="email" value={email} onChange={setEmail} />
        <Field
          id="password"
          label={m.fields.password}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
        />
        <Field
          id="confirm-password"
          label={m.fields.confirmPassword}
          type="password"
          autoComplete="new-password"
          value={confirm}
          onChange={setConfirm}
        />
        <ErrorBox message={error} />
        <SubmitButton busy={busy} label={m.signup.submit} busyLabel={m.signup.submitting} />
      </form>
      <ProviderButtons messages={m} busy={busy} run={run} />
      <p className="text-center text-sm">
        {m.signup.haveAccount}{' '}
        <a href={loginPath} className="font-semibold text-brand underline">
          {m.signup.loginLink}
        </a>
      </p>
    </div>
  );
}

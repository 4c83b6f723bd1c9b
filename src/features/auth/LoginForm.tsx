import { useStore } from '@nanostores/react';
import { sendPasswordResetEmail, signInWithEmailAndPassword } from 'firebase/auth';
import { useEffect, useState, type FormEvent } from 'react';
import CredentialsForm from './CredentialsForm.tsx';
import { authErrorKey } from './errors.ts';
import { firebaseAuth } from './firebase.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import EmailField from '../../ui/EmailField.tsx';
import PasswordField from '../../ui/PasswordField.tsx';
import Notice from '../../ui/Notice.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import { useHydrated } from '../../ui/use-hydrated.ts';
import type { LoginFormMessages } from './login-form-messages.ts';
import { safeNext } from './redirect.ts';
import { $session } from './session.ts';
import { useAuthAction } from './useAuthAction.ts';
import { validateEmail } from './validation.ts';

const LINK_BUTTON = 'text-sm font-semibold text-brand underline';

interface Props {
  messages: LoginFormMessages;
  profilePath: string;
  signupPath: string;
}

/** Login (spec 2): e-mail and password, Google and Apple, 'Forgot password?'. */
export default function LoginForm({ messages: m, profilePath, signupPath }: Props) {
  const session = useStore($session);
  const hydrated = useHydrated();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [resetting, setResetting] = useState(false);
  const [resetSent, setResetSent] = useState(false);
  const action = useAuthAction(m, m.errors.loginFailed);
  const { busy, error, setError, run } = action;
  // Arriving already signed in, or signing in by any means, goes on to the profile or the guarded
  // page: the form's only navigation, so signing in never starts two.
  useEffect(() => {
    if (session.status === 'signedIn') window.location.replace(safeNext(window.location, profilePath));
  }, [session.status, profilePath]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const invalid = validateEmail(email) ?? (password === '' ? 'passwordRequired' : undefined);
    if (invalid) return setError(m.validation[invalid]);
    void run(async () => {
      await signInWithEmailAndPassword(firebaseAuth(), email.trim(), password);
    });
  }

  // 'Forgot password?' and back: the form a traveller goes to starts without the other's messages.
  function showReset(on: boolean) {
    setResetting(on);
    setResetSent(false);
    setError(undefined);
  }

  function submitReset(event: FormEvent) {
    event.preventDefault();
    const invalid = validateEmail(email);
    if (invalid) return setError(m.validation[invalid]);
    void run(async () => {
      try {
        await sendPasswordResetEmail(firebaseAuth(), email.trim());
      } catch (caught) {
        // Never reveal whether an address has an account.
        if (authErrorKey(caught) !== 'invalidCredential') throw caught;
      }
      setResetSent(true);
    });
  }

  if (resetting) {
    return (
      <form noValidate onSubmit={submitReset} className="space-y-4">
        <h2 className="text-lg font-semibold">{m.reset.heading}</h2>
        <p className="text-sm text-ink-muted">{m.reset.intro}</p>
        <EmailField id="reset-email" label={m.fields.email} value={email} onChange={setEmail} />
        <ErrorBox message={error} />
        {resetSent && <Notice>{m.reset.sent}</Notice>}
        <SubmitButton busy={busy} label={m.reset.submit} busyLabel={m.reset.submitting} />
        <button type="button" disabled={!hydrated} className={`w-full ${LINK_BUTTON}`} onClick={() => showReset(false)}>
          {m.reset.back}
        </button>
      </form>
    );
  }

  const signup = { question: m.login.noAccount, link: m.login.signupLink, href: signupPath };
  return (
    <CredentialsForm onSubmit={submit} action={action} messages={m} submit={m.login} other={signup}>
      <EmailField id="email" label={m.fields.email} value={email} onChange={setEmail} />
      <PasswordField id="password" label={m.fields.password} value={password} onChange={setPassword} />
      <button type="button" disabled={!hydrated} className={LINK_BUTTON} onClick={() => showReset(true)}>
        {m.login.forgot}
      </button>
    </CredentialsForm>
  );
}

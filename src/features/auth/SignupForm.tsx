import { useStore } from '@nanostores/react';
import { createUserWithEmailAndPassword, sendEmailVerification } from 'firebase/auth';
import { useEffect, useState, type FormEvent } from 'react';
import CredentialsForm from './CredentialsForm.tsx';
import { firebaseAuth } from './firebase.ts';
import EmailField from '../../ui/EmailField.tsx';
import PasswordField from '../../ui/PasswordField.tsx';
import type { SignupFormMessages } from './signup-form-messages.ts';
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
  const action = useAuthAction(m, m.errors.signupFailed);
  useEffect(() => {
    // A visitor who is already signed in has nothing to sign up for; a new account goes on once
    // the confirmation e-mail is sent. The form's only navigation, so signing up never starts two.
    if (session.status === 'signedIn' && !creating) window.location.replace(safeNext(window.location, profilePath));
  }, [session.status, creating, profilePath]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const invalid = validateEmail(email) ?? validateNewPassword(password, confirm);
    if (invalid) return action.setError(m.validation[invalid]);
    setCreating(true);
    void action.run(async () => {
      try {
        const { user } = await createUserWithEmailAndPassword(firebaseAuth(), email.trim(), password);
        await sendEmailVerification(user, { url: new URL(profilePath, window.location.origin).href });
      } finally {
        setCreating(false);
      }
    });
  }

  const login = { question: m.signup.haveAccount, link: m.signup.loginLink, href: loginPath };
  return (
    <CredentialsForm onSubmit={submit} action={action} messages={m} submit={m.signup} other={login}>
      <EmailField id="email" label={m.fields.email} value={email} onChange={setEmail} />
      <PasswordField id="password" label={m.fields.password} isNew value={password} onChange={setPassword} />
      <PasswordField id="confirm-password" label={m.fields.confirmPassword} isNew value={confirm} onChange={setConfirm} />
    </CredentialsForm>
  );
}

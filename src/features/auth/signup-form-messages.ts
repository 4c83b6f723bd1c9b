import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { authNamespace, credentialsFormMessages, type AuthNamespace, type CredentialsFormMessages } from './messages.ts';

/** What the sign-up island (SignupForm.tsx) says, and nothing else: the page itself shows the title and heading. */
export interface SignupFormMessages extends CredentialsFormMessages<'signupFailed'> {
  signup: Pick<AuthNamespace['signup'], 'submit' | 'submitting' | 'haveAccount' | 'loginLink'>;
  fields: Pick<AuthNamespace['fields'], 'email' | 'password' | 'confirmPassword'>;
  validation: AuthNamespace['validation'];
}

export function signupFormMessages(locale: Locale): SignupFormMessages {
  const auth = authNamespace(locale);
  return {
    signup: pickMessages(auth.signup, ['submit', 'submitting', 'haveAccount', 'loginLink']),
    fields: pickMessages(auth.fields, ['email', 'password', 'confirmPassword']),
    validation: auth.validation,
    ...credentialsFormMessages(auth, ['signupFailed']),
  };
}

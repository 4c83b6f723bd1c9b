import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { authNamespace, credentialsFormMessages, type AuthNamespace, type CredentialsFormMessages } from './messages.ts';
import type { EmailValidationKey } from './validation.ts';

/** What the login island (LoginForm.tsx) says, and nothing else: the page itself shows the title and heading. */
export interface LoginFormMessages extends CredentialsFormMessages<'loginFailed'> {
  login: Pick<AuthNamespace['login'], 'forgot' | 'submit' | 'submitting' | 'noAccount' | 'signupLink'>;
  reset: AuthNamespace['reset'];
  fields: Pick<AuthNamespace['fields'], 'email' | 'password'>;
  validation: Pick<AuthNamespace['validation'], EmailValidationKey | 'passwordRequired'>;
}

export function loginFormMessages(locale: Locale): LoginFormMessages {
  const auth = authNamespace(locale);
  return {
    login: pickMessages(auth.login, ['forgot', 'submit', 'submitting', 'noAccount', 'signupLink']),
    reset: auth.reset,
    fields: pickMessages(auth.fields, ['email', 'password']),
    validation: pickMessages(auth.validation, ['emailRequired', 'emailInvalid', 'passwordRequired']),
    ...credentialsFormMessages(auth, ['loginFailed']),
  };
}

import { MIN_PASSWORD_LENGTH } from '../../config/constants.ts';
import type { Locale } from '../../i18n/locales.ts';
import { namespaceMessages, pickMessages, type NamespaceMessages } from '../../i18n/namespace-messages.ts';
import { AUTH_ERROR_KEYS, type AuthErrorKey } from './errors.ts';

/** The auth namespace (sign-in and sign-up, reset, validation, errors, guard): what the auth islands' builders pick from. */
export type AuthNamespace = NamespaceMessages<'auth'>;

export function authNamespace(locale: Locale): AuthNamespace {
  return namespaceMessages(locale, 'auth', { min: MIN_PASSWORD_LENGTH });
}

/** What useAuthAction says for every Firebase error it knows, and the form's own fallback messages (`F`). */
export interface AuthErrorMessages<F extends keyof AuthNamespace['errors'] = never> {
  errors: Pick<AuthNamespace['errors'], AuthErrorKey | F>;
}

export function authErrorMessages<F extends keyof AuthNamespace['errors']>(
  auth: AuthNamespace,
  fallbacks: readonly F[],
): AuthErrorMessages<F> {
  return { errors: pickMessages(auth.errors, [...AUTH_ERROR_KEYS, ...fallbacks]) };
}

/** The Google and Apple buttons' texts. */
export type ProviderButtonsMessages = Pick<AuthNamespace, 'or' | 'google' | 'apple'>;

export function providerButtonsMessages(auth: AuthNamespace): ProviderButtonsMessages {
  return pickMessages(auth, ['or', 'google', 'apple']);
}

/** What sign-in and sign-up share (CredentialsForm.tsx): every Firebase error, the form's own fallbacks (`F`), Google and Apple. */
export type CredentialsFormMessages<F extends keyof AuthNamespace['errors']> = AuthErrorMessages<F> & ProviderButtonsMessages;

export function credentialsFormMessages<F extends keyof AuthNamespace['errors']>(
  auth: AuthNamespace,
  fallbacks: readonly F[],
): CredentialsFormMessages<F> {
  return { ...authErrorMessages(auth, fallbacks), ...providerButtonsMessages(auth) };
}

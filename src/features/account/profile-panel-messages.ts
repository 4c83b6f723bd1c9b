import type { Locale } from '../../i18n/locales.ts';
import { pickMessages } from '../../i18n/namespace-messages.ts';
import { shopErrorMessages, type ShopErrorMessages } from '../../shop-client/shop-error-messages.ts';
import { savedCardMessages, type SavedCardMessages } from '../auto-top-ups/messages.ts';
import { AUTH_ERROR_KEYS } from '../auth/errors.ts';
import { authNamespace, type AuthErrorMessages, type AuthNamespace } from '../auth/messages.ts';
import type { NewPasswordValidationKey } from '../auth/validation.ts';
import { accountNamespace, type AccountNamespace } from './messages.ts';

type Profile = AccountNamespace['profile'];
type Fields = AuthNamespace['fields'];

/** The profile texts the island shows: the page itself shows its link lists (shortcuts, help). */
const SHOWN = [
  'emailVerified',
  'emailNotVerified',
  'resendVerification',
  'verificationSent',
  'editName',
  'save',
  'cancel',
  'updated',
  'updateFailed',
  'changePassword',
  'passwordChanged',
  'settings',
  'darkMode',
  'settingsNotSaved',
  'logout',
  'deleteAccount',
  'deleteTitle',
  'deleteText',
  'deleteOrders',
  'deleteConfirm',
  'reauthText',
] as const satisfies readonly (keyof Profile)[];
const FIELDS = [
  'displayName',
  'currentPassword',
  'newPassword',
  'confirmNewPassword',
  'password',
] as const satisfies readonly (keyof Fields)[];

/** What the profile island (ProfilePanel.tsx and its cards) says, and nothing else. */
export interface ProfilePanelMessages extends AuthErrorMessages<'generic'> {
  profile: Pick<Profile, (typeof SHOWN)[number]>;
  fields: Pick<Fields, (typeof FIELDS)[number]>;
  validation: Pick<AuthNamespace['validation'], NewPasswordValidationKey>;
  /** For shopErrorText when deleting the account fails (with errors.network and errors.tooManyRequests). */
  checkout: ShopErrorMessages['checkout'];
  /** The alerts card, whole (issue 23). */
  alerts: AccountNamespace['alerts'];
  /** The saved card's (issue 49; SavedCardCard.tsx), which shows its errors with `errors` and `checkout`. */
  savedCard: SavedCardMessages;
}
type Panel = ProfilePanelMessages;

/** Name, e-mail and its confirmation (AccountCard.tsx). */
export interface AccountCardMessages extends AuthErrorMessages {
  profile: Pick<
    Panel['profile'],
    | 'emailVerified'
    | 'emailNotVerified'
    | 'resendVerification'
    | 'verificationSent'
    | 'editName'
    | 'save'
    | 'cancel'
    | 'updated'
    | 'updateFailed'
  >;
  fields: Pick<Panel['fields'], 'displayName'>;
}

/** The password change (PasswordCard.tsx). */
export interface PasswordCardMessages extends AuthErrorMessages<'generic'> {
  profile: Pick<Panel['profile'], 'changePassword' | 'passwordChanged'>;
  fields: Pick<Panel['fields'], 'currentPassword' | 'newPassword' | 'confirmNewPassword'>;
  validation: Panel['validation'];
}

/** The device settings (SettingsCard.tsx). */
export interface SettingsCardMessages {
  profile: Pick<Panel['profile'], 'settings' | 'darkMode' | 'settingsNotSaved'>;
}

/** Push on this device and which alerts go by e-mail and push (AlertsCard.tsx and its parts). */
export interface AlertsCardMessages {
  alerts: Panel['alerts'];
}

/** Log out and delete the account (DangerCard.tsx). */
export interface DangerCardMessages extends AuthErrorMessages<'generic'> {
  profile: Pick<
    Panel['profile'],
    'logout' | 'deleteAccount' | 'deleteTitle' | 'deleteText' | 'deleteOrders' | 'deleteConfirm' | 'cancel' | 'reauthText'
  >;
  fields: Pick<Panel['fields'], 'password'>;
  checkout: Panel['checkout'];
}

export function profilePanelMessages(locale: Locale): ProfilePanelMessages {
  const auth = authNamespace(locale);
  const account = accountNamespace(locale);
  return {
    profile: pickMessages(account.profile, SHOWN),
    alerts: account.alerts,
    fields: pickMessages(auth.fields, FIELDS),
    validation: pickMessages(auth.validation, ['passwordRequired', 'passwordTooShort', 'passwordsMismatch']),
    errors: pickMessages(auth.errors, [...AUTH_ERROR_KEYS, 'generic']),
    checkout: shopErrorMessages(locale).checkout,
    savedCard: savedCardMessages(locale),
  };
}

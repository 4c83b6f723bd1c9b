import { MIN_PASSWORD_LENGTH } from '../../config/constants.ts';

/** Form validation of spec 5, before any request is sent. Keys name messages in auth.json `validation`. */
export type EmailValidationKey = 'emailRequired' | 'emailInvalid';
export type NewPasswordValidationKey = 'passwordRequired' | 'passwordTooShort' | 'passwordsMismatch';
export type ValidationKey = EmailValidationKey | NewPasswordValidationKey;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validateEmail(email: string): EmailValidationKey | undefined {
  if (email.trim() === '') return 'emailRequired';
  return EMAIL.test(email.trim()) ? undefined : 'emailInvalid';
}

export function validateNewPassword(password: string, confirm: string): NewPasswordValidationKey | undefined {
  if (password === '') return 'passwordRequired';
  if (password.length < MIN_PASSWORD_LENGTH) return 'passwordTooShort';
  return password === confirm ? undefined : 'passwordsMismatch';
}

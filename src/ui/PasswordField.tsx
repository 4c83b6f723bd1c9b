import type { ComponentProps } from 'react';
import Field from './Field.tsx';

/**
 * A password input. `isNew` for one being chosen (autocomplete `new-password`: password managers
 * offer to generate and save it), otherwise one being entered (`current-password`).
 */
export default function PasswordField({
  isNew,
  ...props
}: Omit<ComponentProps<typeof Field>, 'type' | 'autoComplete'> & { isNew?: boolean }) {
  return <Field {...props} type="password" autoComplete={isNew ? 'new-password' : 'current-password'} />;
}

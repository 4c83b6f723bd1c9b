import type { ComponentProps } from 'react';
import Field from './Field.tsx';

/** An e-mail address input (sign-in, sign-up, password reset). */
export default function EmailField(props: Omit<ComponentProps<typeof Field>, 'type' | 'autoComplete'>) {
  return <Field {...props} type="email" autoComplete="email" />;
}

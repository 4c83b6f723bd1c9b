import type { FormEvent, ReactNode } from 'react';
import ErrorBox from '../../ui/ErrorBox.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import type { ProviderButtonsMessages } from './messages.ts';
import { ProviderButtons } from './ProviderButtons.tsx';
import type { useAuthAction } from './useAuthAction.ts';

/**
 * What sign-in and sign-up share (spec 2): the form with its fields (`children`), red box and
 * submit button, then Google and Apple, then the link to the other of the two forms.
 */
export default function CredentialsForm(props: {
  children: ReactNode;
  onSubmit: (event: FormEvent) => void;
  action: Pick<ReturnType<typeof useAuthAction>, 'busy' | 'error' | 'run'>;
  messages: ProviderButtonsMessages;
  submit: { submit: string; submitting: string };
  other: { question: string; link: string; href: string };
}) {
  const { busy, error, run } = props.action;
  return (
    <div className="space-y-6">
      <form noValidate onSubmit={props.onSubmit} className="space-y-4">
        {props.children}
        <ErrorBox message={error} />
        <SubmitButton busy={busy} label={props.submit.submit} busyLabel={props.submit.submitting} />
      </form>
      <ProviderButtons messages={props.messages} busy={busy} run={run} />
      <p className="text-center text-sm">
        {props.other.question}{' '}
        <a href={props.other.href} className="font-semibold text-brand underline">
          {props.other.link}
        </a>
      </p>
    </div>
  );
}

import type { ProviderButtonsMessages } from './messages.ts';
import { signInWith } from './providers.ts';
import { useHydrated } from '../../ui/use-hydrated.ts';

/**
 * Google and Apple sign-in; `run` is the form's action runner, so errors land in its red box.
 * The form goes on once the session is signed in, as after any other way of signing in.
 */
export function ProviderButtons(props: {
  messages: ProviderButtonsMessages;
  busy: boolean;
  run: (action: () => Promise<void>) => Promise<void>;
}) {
  const hydrated = useHydrated();
  const disabled = props.busy || !hydrated;
  const button =
    'flex w-full items-center justify-center gap-3 rounded-full border border-line px-5 py-3 font-semibold disabled:opacity-70';
  const signIn = (provider: 'google' | 'apple') =>
    props.run(async () => {
      await signInWith(provider);
    });
  return (
    <div className="space-y-3">
      <p className="text-center text-sm text-ink-muted">{props.messages.or}</p>
      <button type="button" className={button} disabled={disabled} onClick={() => signIn('google')}>
        <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5">
          <path fill="#4285F4" d="M22.5 12.3c0-.8-.1-1.5-.2-2.3H12v4.3h5.9a5 5 0 0 1-2.2 3.3v2.7h3.5c2.1-1.9 3.3-4.8 3.3-8Z" />
          <path fill="#34A853" d="M12 23c3 0 5.5-1 7.3-2.7l-3.5-2.7c-1 .7-2.3 1.1-3.8 1.1-2.9 0-5.4-2-6.3-4.6H2.1v2.8A11 11 0 0 0 12 23Z" />
          <path fill="#FBBC05" d="M5.7 14.1a6.6 6.6 0 0 1 0-4.2V7.1H2.1a11 11 0 0 0 0 9.8l3.6-2.8Z" />
          <path fill="#EA4335" d="M12 5.4c1.6 0 3.1.6 4.2 1.7l3.1-3.1A11 11 0 0 0 2.1 7.1l3.6 2.8C6.6 7.3 9.1 5.4 12 5.4Z" />
        </svg>
        {props.messages.google}
      </button>
      <button type="button" className={button} disabled={disabled} onClick={() => signIn('apple')}>
        <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5 fill-current">
          <path d="M16.4 12.6c0-2.5 2-3.7 2.1-3.8a4.6 4.6 0 0 0-3.6-2c-1.5-.2-3 .9-3.8.9-.8 0-2-.9-3.3-.8a4.9 4.9 0 0 0-4.1 2.5c-1.8 3-.5 7.6 1.3 10.1.8 1.2 1.8 2.6 3.1 2.5 1.2 0 1.7-.8 3.2-.8s1.9.8 3.2.8c1.3 0 2.2-1.2 3-2.4a10 10 0 0 0 1.4-2.8 4.3 4.3 0 0 1-2.5-4.2ZM14 5.1A4.4 4.4 0 0 0 15 1.9a4.5 4.5 0 0 0-2.9 1.5 4.2 4.2 0 0 0-1 3.1A3.7 3.7 0 0 0 14 5.1Z" />
        </svg>
        {props.messages.apple}
      </button>
    </div>
  );
}

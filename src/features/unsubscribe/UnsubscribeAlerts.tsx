import { useEffect, useState, type FormEvent } from 'react';
import { API_BASE_URL } from '../../shop-client/api-base.ts';
import { unsubscribeAlerts, type UnsubscribeOutcome } from '../../shop-client/unsubscribe-alerts.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import Notice from '../../ui/Notice.tsx';
import SubmitButton from '../../ui/SubmitButton.tsx';
import type { UnsubscribeMessages } from './unsubscribe-messages.ts';

interface Props {
  /** The profile's alerts card (/profile#alerts), in the page's language. */
  managePath: string;
  messages: UnsubscribeMessages;
}

type State = { status: 'ready' | 'busy' } | UnsubscribeOutcome;

/**
 * The alert e-mail footer's unsubscribe link (issue 23): the token in ?token= goes to the API
 * only when the traveller presses the button, so a mail scanner that opens every link stops
 * nothing. The API's answer names the kind stopped; a link without a valid token says so, a
 * failed request can be sent again.
 */
export default function UnsubscribeAlerts({ managePath, messages: m }: Props) {
  const [token, setToken] = useState<string>();
  const [state, setState] = useState<State>({ status: 'ready' });

  useEffect(() => {
    const given = new URLSearchParams(window.location.search).get('token');
    if (given) setToken(given);
    else setState({ status: 'invalid' });
  }, []);

  async function stop(event: FormEvent) {
    event.preventDefault();
    if (!token || state.status === 'busy') return;
    setState({ status: 'busy' });
    setState(await unsubscribeAlerts(API_BASE_URL, token));
  }

  return (
    <div className="space-y-4" data-unsubscribe={state.status}>
      {state.status === 'done' ? (
        <Notice>{m.done[state.kind]}</Notice>
      ) : (
        <>
          <p>{m.intro}</p>
          <ErrorBox message={state.status === 'invalid' ? m.invalid : state.status === 'failed' ? m.failed : undefined} />
          {state.status !== 'invalid' && (
            <form onSubmit={stop} className="max-w-sm">
              <SubmitButton busy={state.status === 'busy'} label={state.status === 'failed' ? m.retry : m.confirm} busyLabel={m.busy} />
            </form>
          )}
        </>
      )}
      <a href={managePath} className="inline-block font-semibold text-brand underline">
        {m.manage}
      </a>
    </div>
  );
}

import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { SUPPORT_MESSAGE_MAX, SUPPORT_MESSAGE_MIN } from '../../config/constants.ts';
import type { SupportView } from '../../contract/support-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { SupportError } from '../../shop-client/support-client.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import { $session } from '../auth/session.ts';
import { PROFILE_CARD_CLASS } from '../account/profile-card.ts';
import { idTokenIfSignedIn, supportClient } from './support-api.ts';
import type { SupportRequestsMessages } from './support-messages.ts';

interface Props {
  locale: Locale;
  messages: SupportRequestsMessages;
  /** The support form (/chat). */
  chatPath: string;
}

/** The profile's support requests (issue 32 item 4): each with our answers, and a follow-up that reopens it. */
export default function SupportRequests({ locale, messages: m, chatPath }: Props) {
  const session = useStore($session);
  // useId's ids begin with an underscore, which HTML's ids may not: a letter first.
  const headingId = `support${useId()}`;
  const [requests, setRequests] = useState<SupportView[] | 'loading' | 'failed'>('loading');
  const signedIn = session.status === 'signedIn';
  const load = useCallback(async () => {
    setRequests('loading');
    try {
      const token = await idTokenIfSignedIn();
      if (!token) return;
      setRequests((await supportClient.list(token)).requests);
    } catch {
      setRequests('failed');
    }
  }, []);
  useEffect(() => {
    if (signedIn) void load();
  }, [signedIn, load]);
  if (!signedIn) return null;
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <section id="support" aria-labelledby={headingId} className={PROFILE_CARD_CLASS} data-support-requests>
      <h2 id={headingId} className="text-lg font-semibold">
        {m.heading}
      </h2>
      {requests === 'loading' && <p className="mt-2 text-ink-muted">{m.loading}</p>}
      {requests === 'failed' && (
        <div className="mt-2">
          <ErrorBox message={m.loadFailed} />
          <button
            type="button"
            onClick={() => void load()}
            className="mt-2 rounded-full border border-line px-4 py-2 text-sm font-semibold"
          >
            {m.retry}
          </button>
        </div>
      )}
      {Array.isArray(requests) && requests.length === 0 && <p className="mt-2 text-ink-muted">{m.none}</p>}
      {Array.isArray(requests) && requests.length > 0 && (
        <ul className="mt-3 space-y-4">
          {requests.map((request) => (
            <li key={request.id} className="rounded-xl border border-line p-4" data-support-request={request.reference}>
              <p className="flex flex-wrap items-center gap-2 text-sm">
                <span className="font-semibold" dir="ltr">
                  {fill(m.reference, { reference: request.reference })}
                </span>
                <span className="rounded-full bg-surface-muted px-2 py-0.5">{m.states[request.state]}</span>
                {request.orderNumber && <span className="text-ink-muted">{fill(m.about, { number: request.orderNumber })}</span>}
              </p>
              <ol className="mt-3 space-y-3">
                {request.messages.map((message, i) => (
                  <li
                    key={i}
                    data-author={message.author}
                    className={message.author === 'operator' ? 'border-s-4 border-brand ps-3' : 'ps-4'}
                  >
                    <p className="text-xs text-ink-muted">
                      {message.author === 'operator' ? m.us : m.you} ·{' '}
                      <time dateTime={message.createdAt}>{date.format(new Date(message.createdAt))}</time>
                    </p>
                    <p className="mt-1 whitespace-pre-line">{message.body}</p>
                  </li>
                ))}
              </ol>
              <FollowUp
                request={request}
                m={m}
                onSent={(view) => setRequests((list) => (Array.isArray(list) ? list.map((r) => (r.id === view.id ? view : r)) : list))}
              />
            </li>
          ))}
        </ul>
      )}
      <a href={chatPath} className="mt-4 inline-block font-semibold text-brand underline">
        {m.write}
      </a>
    </section>
  );
}

function FollowUp({ request, m, onSent }: { request: SupportView; m: SupportRequestsMessages; onSent: (view: SupportView) => void }) {
  const id = `support${useId()}`;
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    // The contract's bounds (SupportFollowUp), checked here without zod: the profile's JavaScript budget.
    const length = text.trim().length;
    if (length < SUPPORT_MESSAGE_MIN || length > SUPPORT_MESSAGE_MAX)
      return setError(
        fill(text.trim().length < SUPPORT_MESSAGE_MIN ? m.messageShort : m.messageLong, {
          min: String(SUPPORT_MESSAGE_MIN),
          max: String(SUPPORT_MESSAGE_MAX),
        }),
      );
    setError(undefined);
    setBusy(true);
    try {
      const token = await idTokenIfSignedIn();
      if (!token) throw new SupportError('unauthorized');
      onSent(await supportClient.followUp(request.id, text, token));
      setText('');
      setDone(true);
    } catch (failure) {
      setError(failure instanceof SupportError && failure.kind === 'tooManyRequests' ? m.tooMany : m.failed);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form onSubmit={submit} noValidate className="mt-3">
      <label htmlFor={`${id}-text`} className="block text-sm font-medium">
        {m.followUp}
      </label>
      <textarea
        id={`${id}-text`}
        rows={3}
        maxLength={SUPPORT_MESSAGE_MAX}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-invalid={!!error}
        className="mt-1 w-full rounded-xl border border-line bg-surface px-4 py-3"
      />
      <ErrorBox message={error} />
      {done && (
        <p role="status" className="mt-1 text-sm">
          {m.sent}
        </p>
      )}
      <button
        type="submit"
        disabled={busy}
        aria-busy={busy}
        className="mt-2 rounded-full border border-line px-4 py-2 text-sm font-semibold disabled:opacity-70"
      >
        {busy ? m.sending : m.send}
      </button>
    </form>
  );
}

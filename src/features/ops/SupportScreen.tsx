import { useId, useState, type FormEvent } from 'react';
import type { OpsActionResult, OpsSupportRequest } from '../../contract/ops-api.ts';
import { fill } from '../../i18n/fill.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import { opsClient } from './ops-api.ts';
import { useOps } from './ops-context.ts';
import { opsErrorText } from './ops-errors.ts';
import { formatMoment } from './ops-format.ts';
import { Fact, Load, SearchField, Section, ViewLink } from './OpsParts.tsx';
import OrderScreen from './OrderScreen.tsx';
import { OutcomeNotice, type Outcome } from './OutcomeNotice.tsx';
import { useLoad } from './use-load.ts';

/**
 * The support inbox (issue 32 item 4): open requests, the longest waiting first (or the closed
 * ones), or a search by reference, e-mail, order number or account in both; the chosen one with
 * its messages and diagnosis beside its order and timeline; a reply (e-mailed to the buyer in their
 * language, shown on their profile) and closing it.
 */
export default function SupportScreen({ id, closed, q }: { id: string; closed: boolean; q: string }) {
  const { m, locale, go } = useOps();
  const state = closed ? 'closed' : 'open';
  const [list, reload] = useLoad(() => opsClient.support(state, q), `${state} ${q}`);
  const [outcome, setOutcome] = useState<Outcome>();
  const searching = q.trim() !== '';
  const done = (next: Outcome) => {
    setOutcome(next);
    reload();
  };
  function search(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    go({ name: 'support', id: '', closed, q: String(new FormData(event.currentTarget).get('q') ?? '') });
  }
  return (
    <>
      {/* key: a new address (Back, a link) shows its own search in the field. */}
      <form key={q} onSubmit={search} role="search" className="mb-3 flex flex-wrap items-end gap-3 rounded-lg border border-line p-3">
        <SearchField label={m.support.search} hint={m.support.searchHint} defaultValue={q} className="min-w-0 flex-1" />
        <button type="submit" className="rounded-md bg-brand px-4 py-2 font-semibold text-white">
          {m.orders.submit}
        </button>
      </form>
      <p className="mb-3 flex gap-3 text-sm">
        {(searching || closed) && <ViewLink view={{ name: 'support', id: '', closed: false, q: '' }}>{m.support.showOpen}</ViewLink>}
        {(searching || !closed) && <ViewLink view={{ name: 'support', id: '', closed: true, q: '' }}>{m.support.showClosed}</ViewLink>}
      </p>
      <OutcomeNotice outcome={outcome} />
      <Load state={list} loading={m.support.loading} retry={reload}>
        {({ requests, more }) => {
          const chosen = requests.find((r) => r.id === id);
          return (
            <div className="grid gap-4 lg:grid-cols-[18rem_1fr]">
              <div>
                {requests.length === 0 ? (
                  <p data-support-empty>{searching ? m.support.noneFound : closed ? m.support.noneClosed : m.support.none}</p>
                ) : (
                  <ul className="flex flex-col gap-2" data-support-inbox>
                    {requests.map((r) => (
                      <li key={r.id}>
                        <ViewLink
                          view={{ name: 'support', id: r.id, closed, q }}
                          className={`block rounded-md border px-3 py-2 ${r.id === id ? 'border-brand' : 'border-line'}`}
                        >
                          <span className="block font-semibold" aria-current={r.id === id ? 'true' : undefined}>
                            {r.reference}
                            {searching && r.state === 'closed' && (
                              <span className="font-normal text-ink-muted"> · {m.support.closedMark}</span>
                            )}
                          </span>
                          <span className="block text-sm break-all">{r.email}</span>
                          <span className="block text-xs text-ink-muted">
                            {formatMoment(r.messages.at(-1)?.createdAt ?? r.createdAt, locale)}
                            {r.firstReplyAt ? '' : ` · ${m.support.unanswered}`}
                          </span>
                        </ViewLink>
                      </li>
                    ))}
                  </ul>
                )}
                {more && (
                  <p className="mt-2 text-xs text-ink-muted" data-support-more>
                    {fill(m.support.more, { count: String(requests.length) })}
                  </p>
                )}
              </div>
              <div>
                {chosen ? (
                  <Request key={chosen.id} request={chosen} onDone={done} />
                ) : (
                  requests.length > 0 && <p className="text-ink-muted">{m.support.choose}</p>
                )}
              </div>
            </div>
          );
        }}
      </Load>
    </>
  );
}

function Request({ request, onDone }: { request: OpsSupportRequest; onDone: (outcome: Outcome) => void }) {
  const { m, locale } = useOps();
  const replyId = useId();
  const [text, setText] = useState('');
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (label: string, action: () => Promise<OpsActionResult>, after?: () => void) => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await action();
      after?.();
      onDone({ label, result });
    } catch (failure) {
      setError(opsErrorText(failure, m));
    } finally {
      setBusy(false);
    }
  };
  function reply(event: FormEvent) {
    event.preventDefault();
    if (!text.trim()) return setError(m.support.replyEmpty);
    void run(
      m.support.reply,
      () => opsClient.supportReply(request.id, { text, idempotencyKey: key }),
      () => {
        setText('');
        setKey(crypto.randomUUID());
      },
    );
  }
  const language = new Intl.DisplayNames([locale], { type: 'language' }).of(request.lang) ?? request.lang;
  return (
    <div className="flex flex-col gap-4" data-support-request={request.reference}>
      <Section title={fill(m.support.requestTitle, { reference: request.reference })}>
        <dl className="text-sm">
          <Fact term={m.support.from}>
            {request.email}
            {request.visitor ? ` (${m.support.visitor})` : ''}
          </Fact>
          <Fact term={m.support.language}>{language}</Fact>
          <Fact term={m.support.received}>{formatMoment(request.createdAt, locale)}</Fact>
          {request.givenOrderNumber && <Fact term={m.support.givenNumber}>{request.givenOrderNumber}</Fact>}
          {Object.entries(request.diagnosis).map(([name, value]) => (
            <Fact key={name} term={(m.support.fields as Record<string, string>)[name] ?? name}>
              {typeof value === 'string' ? value : JSON.stringify(value)}
            </Fact>
          ))}
        </dl>
        <ol className="mt-3 flex flex-col gap-3" data-support-messages>
          {request.messages.map((message, i) => (
            <li key={i} data-author={message.author} className={message.author === 'operator' ? 'border-s-4 border-brand ps-3' : 'ps-4'}>
              <p className="text-xs text-ink-muted">
                {message.author === 'operator' ? m.support.operator : m.support.buyer} · {formatMoment(message.createdAt, locale)}
              </p>
              <p className="whitespace-pre-line">{message.body}</p>
            </li>
          ))}
        </ol>
        <form onSubmit={reply} className="mt-3" noValidate>
          <label htmlFor={replyId} className="block font-medium">
            {m.support.replyLabel}
          </label>
          <p id={`${replyId}-hint`} className="text-sm text-ink-muted">
            {fill(m.support.replyHint, { language })}
          </p>
          <textarea
            id={replyId}
            rows={5}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-describedby={`${replyId}-hint`}
            className="mt-1 w-full rounded-md border border-line bg-surface px-3 py-2"
          />
          <ErrorBox message={error} />
          <div className="mt-2 flex flex-wrap gap-2">
            <button
              type="submit"
              disabled={busy}
              className="rounded-md bg-brand px-4 py-1.5 font-semibold text-brand-ink disabled:opacity-70"
            >
              {busy ? m.actions.sending : m.support.reply}
            </button>
            {request.state === 'open' && (
              <button
                type="button"
                disabled={busy}
                onClick={() => void run(m.support.close, () => opsClient.supportClose(request.id, { idempotencyKey: crypto.randomUUID() }))}
                className="rounded-md border border-line px-4 py-1.5 font-semibold disabled:opacity-70"
              >
                {m.support.close}
              </button>
            )}
          </div>
        </form>
      </Section>
      {request.orderId ? <OrderScreen id={request.orderId} /> : <p className="text-ink-muted">{m.support.noOrder}</p>}
    </div>
  );
}

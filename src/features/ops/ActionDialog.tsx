import { Fragment, useId, useRef, useState, type ReactNode } from 'react';
import ErrorBox from '../../ui/ErrorBox.tsx';
import BusyButton from '../../ui/BusyButton.tsx';
import { useOps } from './ops-context.ts';
import { opsErrorText } from './ops-errors.ts';
import type { OpsMessages } from './ops-messages.ts';

type ActionMessages = OpsMessages['actions'];
/** An action's name: its button's text is `m.actions[name]`, its dialog's title `m.actions[`${name}Title`]`. */
export type ActionName = {
  [K in keyof ActionMessages & string]: `${K}Title` extends keyof ActionMessages ? K : never;
}[keyof ActionMessages & string];

export interface ActionDialogProps<R> {
  /** Its messages (the button's text, the dialog's title) and a data-action attribute for tests and styling. */
  name: ActionName;
  /** The free text's field: 'reason' (every action) or 'text' (a note, which is its own reason). */
  textField?: 'reason' | 'text';
  textLabel?: string;
  /** More fields, read from the form when it is sent. */
  fields?: ReactNode;
  /** A red button for what cannot be undone lightly (refund, revoke, block, delete). */
  danger?: boolean;
  /** Builds the request from the form: undefined keeps the dialog open (a field is wrong and says so). */
  body?: (form: FormData) => Record<string, unknown> | undefined;
  send: (body: Record<string, unknown>) => Promise<R>;
  /** The answer and the button's text, after the dialog has closed: the page shows them and reloads. */
  onDone: (result: R, label: string) => void;
}

/**
 * One operator action (issue 30 item 4): a button, and a modal <dialog> asking why. The browser
 * traps focus in the modal dialog, Escape closes it (not while sending) and focus returns to the
 * button. One idempotency key per opening: a double click, or a retry after a lost answer, sends
 * the same key, so the API does it once; a new opening is a new action.
 */
export default function ActionDialog<R>({
  name,
  textField = 'reason',
  textLabel,
  fields,
  danger = false,
  body,
  send,
  onDone,
}: ActionDialogProps<R>) {
  const { m } = useOps();
  const label = m.actions[name];
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const key = useRef('');
  const busy = useRef(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string>();
  // Each opening starts its fields afresh (their own state too, such as the refund's 'an amount').
  const [openings, setOpenings] = useState(0);
  const titleId = useId();
  const textId = useId();
  const hintId = useId();

  function open() {
    key.current = crypto.randomUUID();
    form.current?.reset();
    setOpenings((n) => n + 1);
    setError(undefined);
    dialog.current?.showModal();
  }

  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy.current) return;
    const data = new FormData(event.currentTarget);
    const extra = body ? body(data) : {};
    if (!extra) return;
    const text = String(data.get('text') ?? '').trim();
    busy.current = true;
    setSending(true);
    setError(undefined);
    try {
      const result = await send({ ...extra, [textField]: text, idempotencyKey: key.current });
      dialog.current?.close();
      onDone(result, label);
    } catch (caught) {
      setError(opsErrorText(caught, m));
    } finally {
      busy.current = false;
      setSending(false);
    }
  }

  const buttonClass = danger
    ? 'rounded-md border border-red-700 px-3 py-1.5 text-sm font-semibold text-red-700 dark:border-red-400 dark:text-red-300'
    : 'rounded-md border border-line px-3 py-1.5 text-sm font-semibold';

  return (
    <>
      <button ref={opener} type="button" onClick={open} className={buttonClass} data-action={name}>
        {label}
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        onCancel={(event) => busy.current && event.preventDefault()}
        onClose={() => opener.current?.isConnected && opener.current.focus()}
        className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl bg-surface p-5 text-ink backdrop:bg-black/50"
        data-action-dialog={name}
      >
        <form ref={form} onSubmit={submit} noValidate={false}>
          <h2 id={titleId} className="text-lg font-bold">
            {m.actions[`${name}Title`]}
          </h2>
          <div className="mt-4 flex flex-col gap-4">
            <Fragment key={openings}>{fields}</Fragment>
            <div>
              <label htmlFor={textId} className="block text-sm font-semibold">
                {textLabel ?? m.actions.reason}
              </label>
              <textarea
                id={textId}
                name="text"
                required
                minLength={textField === 'reason' ? 3 : 1}
                maxLength={textField === 'reason' ? 500 : 2000}
                rows={3}
                aria-describedby={textField === 'reason' ? hintId : undefined}
                className="mt-1 w-full rounded-md border border-line bg-surface px-3 py-2"
              />
              {textField === 'reason' && (
                <p id={hintId} className="mt-1 text-xs text-ink-muted">
                  {m.actions.reasonHint}
                </p>
              )}
            </div>
            <ErrorBox message={error} />
          </div>
          <div className="mt-5 flex flex-wrap justify-end gap-3">
            <button
              type="button"
              onClick={() => busy.current || dialog.current?.close()}
              aria-disabled={sending}
              className="rounded-md border border-line px-4 py-2 font-semibold aria-disabled:opacity-60"
            >
              {m.actions.cancel}
            </button>
            <BusyButton
              type="submit"
              busy={sending}
              label={m.actions.send}
              busyLabel={m.actions.sending}
              className={`rounded-md px-4 py-2 font-semibold text-white aria-disabled:opacity-60 ${danger ? 'bg-red-700' : 'bg-brand'}`}
              data-action-confirm
            />
          </div>
        </form>
      </dialog>
    </>
  );
}

import { useId, useRef, useState } from 'react';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { EsimView } from '../../contract/shop-api.ts';
import BusyButton from '../../ui/BusyButton.tsx';
import ErrorBox from '../../ui/ErrorBox.tsx';
import { ShopError } from '../../shop-client/shop-client.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { refundEsim } from '../../shop-client/shop.ts';
import type { RefundDialogMessages } from './my-esims-messages.ts';
import { refundFigures } from './refund-figures.ts';

interface Props {
  esimId: string;
  locale: Locale;
  messages: RefundDialogMessages;
  /** The API's answer: the eSIM as it is now (refunding or refunded). */
  onRefunded: (esim: EsimView) => void;
}

/**
 * 'Request a refund' on a never-installed eSIM (issue 15 item 7) and its confirmation, a modal
 * <dialog> as the profile's delete-account one: the browser moves focus in, Escape closes it,
 * and focus goes back to the button. A failure stays in the dialog with the way to try again.
 */
export default function RefundDialog({ esimId, locale, messages: m, onRefunded }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const textId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  function open() {
    setError(undefined);
    dialog.current?.showModal();
  }

  async function confirm() {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      const esim = await refundEsim(esimId, locale);
      dialog.current?.close();
      onRefunded(esim);
    } catch (caught) {
      setError(
        caught instanceof ShopError && caught.kind === 'notRefundable'
          ? fill(m.notRefundable, refundFigures)
          : shopErrorText(caught, m, locale),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <button
        ref={opener}
        type="button"
        onClick={open}
        className="rounded-full border border-line px-4 py-2 text-sm font-semibold"
        data-refund
      >
        {m.refund}
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        aria-describedby={textId}
        // While the refund is asked for, the dialog stays: its answer is shown in it.
        onCancel={(event) => busy && event.preventDefault()}
        onClose={() => opener.current?.isConnected && opener.current.focus()}
        className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-3xl bg-surface p-6 text-ink backdrop:bg-black/50"
        data-refund-dialog
      >
        <h2 id={titleId} className="text-lg font-bold">
          {m.refundTitle}
        </h2>
        <p id={textId} className="mt-2 text-ink-muted">
          {fill(m.refundText, refundFigures)}
        </p>
        <p className="mt-2 text-sm text-ink-muted">{fill(m.refundWindow, refundFigures)}</p>
        <div className="mt-4">
          <ErrorBox message={error} />
        </div>
        <div className="mt-6 flex flex-wrap justify-end gap-3">
          <button
            type="button"
            onClick={() => busy || dialog.current?.close()}
            aria-disabled={busy}
            className="rounded-full border border-line px-5 py-2 font-semibold aria-disabled:opacity-70"
            data-refund-keep
          >
            {m.refundKeep}
          </button>
          <BusyButton
            busy={busy}
            label={m.refundConfirm}
            busyLabel={m.refundBusy}
            onClick={confirm}
            className="rounded-full bg-red-700 px-5 py-2 font-semibold text-white aria-disabled:opacity-70"
            data-refund-confirm
          />
        </div>
      </dialog>
    </>
  );
}

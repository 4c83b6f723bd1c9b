import { useState } from 'react';
import type { EsimView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import type { ShopErrorMessages } from '../../shop-client/shop-error-messages.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { replaceEsim } from '../../shop-client/shop.ts';
import type { EsimCardMessages } from './my-esims-messages.ts';
import { refundFigures } from './refund-figures.ts';

interface Props {
  esim: EsimView;
  locale: Locale;
  messages: Pick<EsimCardMessages, 'replace' | keyof ShopErrorMessages>;
  /** The old eSIM as it is once replaced ('replaced'). */
  onReplaced: (old: EsimView) => void;
}

/**
 * A new eSIM of the same plan at our cost, in one step (issue 32 item 3), for an eSIM never
 * downloaded or deleted from the phone before it carried data (esim.replaceable: the server's rules).
 */
export default function ReplaceOffer({ esim, locale, messages: m, onReplaced }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const deleted = esim.installStep === 'deleted';

  async function replace() {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await replaceEsim(esim.id, locale);
      // The old eSIM is replaced now: the panel says so at once, and the list loads again with the
      // new one (MyEsims), bringing the server's view of both; no read of the old one is needed.
      onReplaced({ ...esim, status: 'replaced', replaceable: false, refundable: false });
    } catch (caught) {
      const kind = caught instanceof ShopError ? caught.kind : 'server';
      const text =
        kind === 'notReplaceable'
          ? fill(m.replace.notReplaceable, refundFigures)
          : kind === 'network' || kind === 'server'
            ? m.replace.failed
            : shopErrorText(caught, m, locale);
      setError(text);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="mt-3" data-replace-offer>
      <p>{deleted ? m.replace.hintDeleted : m.replace.hint}</p>
      <button
        type="button"
        onClick={replace}
        disabled={busy}
        aria-busy={busy}
        className="mt-2 rounded-full bg-brand px-4 py-2 text-sm font-semibold text-brand-ink disabled:opacity-60"
        data-replace
      >
        {busy ? m.replace.busy : m.replace.button}
      </button>
      {error && (
        <p role="alert" className="mt-2 text-red-700 dark:text-red-300" data-replace-error>
          {error}
        </p>
      )}
    </div>
  );
}

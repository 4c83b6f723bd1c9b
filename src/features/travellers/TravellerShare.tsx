import { useId, useRef, useState, type FormEvent } from 'react';
import type { EsimView, TravellerLink } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { revokeTravellerLink, shareWithTraveller } from '../../shop-client/shop.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import CopyButton from '../esims/CopyButton.tsx';
import type { TravellerShareMessages } from './messages.ts';
import { hasProblems, toTraveller, travellerProblems, type TravellerDraft, type TravellerProblems } from './traveller-draft.ts';
import TravellerFields from './TravellerFields.tsx';

interface Props {
  esim: EsimView;
  locale: Locale;
  messages: TravellerShareMessages;
  onChanged: (esim: EsimView) => void;
}

const buttonClass = 'rounded-full border border-line px-4 py-2 text-sm font-semibold disabled:opacity-60';

/**
 * Giving an eSIM of My eSIMs to a traveller (issue 33): their name and, optionally, address; a new
 * private link each time (the last one stops), e-mailed to them and shown to copy and pass on; and
 * a button that stops the link.
 */
export default function TravellerShare({ esim, locale, messages: m, onChanged }: Props) {
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<TravellerDraft>({ name: esim.traveller?.name ?? '', email: esim.traveller?.email ?? '' });
  const [problems, setProblems] = useState<TravellerProblems>({});
  const [busy, setBusy] = useState(false);
  const [shared, setShared] = useState<TravellerLink & { askedEmail: boolean }>();
  const [revoked, setRevoked] = useState(false);
  const [failure, setFailure] = useState<string>();
  const nameField = useRef<HTMLInputElement>(null);
  const emailField = useRef<HTMLInputElement>(null);

  async function send(event: FormEvent) {
    event.preventDefault();
    const found = travellerProblems(draft, true);
    setProblems(found);
    const traveller = toTraveller(draft);
    if (hasProblems(found) || !traveller) {
      (found.name ? nameField : emailField).current?.focus();
      return;
    }
    setBusy(true);
    setFailure(undefined);
    try {
      const link = await shareWithTraveller(esim.id, traveller);
      setShared({ ...link, askedEmail: traveller.email !== undefined });
      setRevoked(false);
      onChanged({ ...esim, traveller: { name: traveller.name, email: traveller.email ?? null } });
    } catch (error) {
      setFailure(error instanceof ShopError && error.kind === 'notShareable' ? m.notShareable : shopErrorText(error, m, locale));
    } finally {
      setBusy(false);
    }
  }

  async function revoke() {
    setBusy(true);
    setFailure(undefined);
    try {
      await revokeTravellerLink(esim.id);
      setShared(undefined);
      setRevoked(true);
    } catch (error) {
      setFailure(shopErrorText(error, m, locale));
    } finally {
      setBusy(false);
    }
  }

  const outcome =
    shared && (shared.emailedTo ? fill(m.emailed, { email: shared.emailedTo }) : shared.askedEmail ? m.notEmailed : m.linkReady);
  return (
    <div className="w-full" data-traveller-share>
      <button type="button" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen(!open)} className={buttonClass}>
        {esim.traveller ? m.manage : m.give}
      </button>
      <form id={panelId} hidden={!open} noValidate onSubmit={send} className="mt-3 space-y-3 rounded-xl bg-surface-muted p-4">
        <p className="text-sm">{m.hint}</p>
        <TravellerFields
          draft={draft}
          problems={problems}
          onChange={setDraft}
          labels={{ name: m.name, email: m.email }}
          messages={m}
          nameRef={nameField}
          emailRef={emailField}
        />
        <div className="flex flex-wrap gap-3">
          <button
            type="submit"
            disabled={busy}
            className="rounded-full bg-brand px-4 py-2 text-sm font-semibold text-brand-ink"
            data-send-link
          >
            {busy ? m.sending : m.send}
          </button>
          {esim.traveller && (
            <button type="button" disabled={busy} onClick={() => void revoke()} className={buttonClass} data-revoke-link>
              {m.revoke}
            </button>
          )}
        </div>
        <ErrorBox message={failure} />
        <div role="status" className="space-y-2 text-sm empty:hidden" data-link-outcome>
          {revoked && <p>{m.revoked}</p>}
          {shared && <p>{outcome}</p>}
        </div>
        {shared && (
          <div className="space-y-2">
            <label className="block text-sm font-medium">
              {m.link}
              <input
                readOnly
                dir="ltr"
                value={shared.link}
                onFocus={(event) => event.target.select()}
                className="mt-1 w-full rounded-xl border border-line bg-surface px-3 py-2 font-mono text-xs"
                data-traveller-link
              />
            </label>
            <CopyButton text={shared.link} label={fill(m.copy, { what: m.link })} copiedText={m.copied} failedText={m.copyFailed} />
          </div>
        )}
      </form>
    </div>
  );
}

import { useCallback, useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type FormEvent } from 'react';
import { AUTO_TOP_UP } from '../../config/auto-top-ups.ts';
import type { AutoTopUpView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDateTime, formatPrice, majorUnits } from '../../lib/format.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import { getAutoTopUps, saveAutoTopUps, turnOffAutoTopUps } from '../../shop-client/auto-top-ups.ts';
import { cardSaved, removeCard, saveCard } from '../../shop-client/saved-card.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import Notice from '../../ui/Notice.tsx';
import RetryButton from '../../ui/RetryButton.tsx';
import { consentText, topUpText, typedMinor } from '../../lib/auto-top-up-consent.ts';
import LimitsAndConsent, { type TypedLimits } from './LimitsAndConsent.tsx';
import type { AutoTopUpMessages } from './messages.ts';
import { savedCardText } from './saved-card-text.ts';

interface Props {
  esimId: string;
  locale: Locale;
  messages: AutoTopUpMessages;
}

type Loaded = { status: 'idle' | 'loading' } | { status: 'failed'; text: string } | { status: 'ready'; view: AutoTopUpView };

/** What the buyer has typed: kept as typed whatever fails. */
interface Choices extends TypedLimits {
  packageId: string;
}

/**
 * A button that reads as a link within a sentence (turning off, the card's actions). Busy, it is
 * aria-disabled rather than disabled: a disabled button drops the keyboard's focus.
 */
function TextButton({
  busy,
  onPress,
  ...props
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'className' | 'onClick'> & {
  busy: boolean;
  onPress: () => void;
  [data: `data-${string}`]: boolean;
}) {
  return (
    <button
      type="button"
      aria-disabled={busy}
      onClick={() => !busy && onPress()}
      className="font-semibold text-brand underline aria-disabled:opacity-70"
      {...props}
    />
  );
}

/** The query parameter Stripe's card page comes back with (auto-top-ups/saved-card.ts). */
const CARD_SAVED = 'card_saved';

/**
 * An eSIM's automatic top-ups in My eSIMs (issue 49): opened, it shows whether they are on and the
 * consent as given; the form chooses the top-up, how many at most and how much a month, shows the
 * consent those choices make, and turns them on once ticked. Without a saved card, Stripe's page
 * saves one next, and comes back here. The saved card can be removed here too.
 */
export default function AutoTopUps({ esimId, locale, messages: m }: Props) {
  const panelId = useId();
  const headingId = useId();
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState<Loaded>({ status: 'idle' });
  const [choices, setChoices] = useState<Choices | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const noticeRef = useRef<HTMLDivElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);

  const load = useCallback(async () => {
    setLoaded({ status: 'loading' });
    try {
      const view = await getAutoTopUps(esimId, locale);
      setLoaded({ status: 'ready', view });
      // The form starts from the setting, else from the cheapest top-up, twice a month at most.
      setChoices(
        (typed) =>
          typed ?? {
            packageId: view.setting?.packageId ?? '',
            maxCount: String(view.setting?.maxCount ?? AUTO_TOP_UP.defaultMaxCount),
            cap: view.setting
              ? String(majorUnits(view.setting.monthlyCap))
              : view.offers[0]
                ? String(
                    majorUnits({ ...view.offers[0].price, amountMinor: view.offers[0].price.amountMinor * AUTO_TOP_UP.defaultMaxCount }),
                  )
                : '',
            agreed: false,
          },
      );
    } catch (failure) {
      setLoaded({ status: 'failed', text: shopErrorText(failure, m, locale) });
    }
  }, [esimId, locale, m]);

  // Back from Stripe's card page (#auto-top-up-<id>?card_saved=…): the card it saved is read, and the panel opens.
  useEffect(() => {
    const url = new URL(window.location.href);
    const session = url.searchParams.get(CARD_SAVED);
    if (!session || url.hash !== `#auto-top-up-${esimId}`) return;
    url.searchParams.delete(CARD_SAVED);
    window.history.replaceState(null, '', url);
    setOpen(true);
    void cardSaved(session)
      .then(({ card }) => setNotice(card ? m.cardSaved : undefined))
      .catch((failure: unknown) => setError(shopErrorText(failure, m, locale)))
      .finally(() => void load());
  }, [esimId, load, locale, m]);

  useEffect(() => {
    if (notice) noticeRef.current?.focus();
  }, [notice]);

  function toggle() {
    setOpen(!open);
    if (!open && (loaded.status === 'idle' || loaded.status === 'failed')) void load();
  }

  const view = loaded.status === 'ready' ? loaded.view : undefined;
  const chosen = view && choices ? view.offers.find((o) => o.id === choices.packageId) : undefined;
  const capMinor = view && choices ? typedMinor(choices.cap, view.currency) : NaN;
  const count = Number(choices?.maxCount);
  const consent =
    view && choices && Number.isFinite(capMinor)
      ? consentText(m, locale, chosen, Number.isInteger(count) ? count : AUTO_TOP_UP.defaultMaxCount, {
          amountMinor: capMinor,
          currency: view.currency,
        })
      : undefined;

  async function act(work: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      await work();
    } catch (failure) {
      // (A monthly limit below the price is said before asking; the API's own 409 is a price changed meanwhile.)
      setError(shopErrorText(failure, m, locale));
    }
    setBusy(false);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!view || !choices || busy) return;
    if (!choices.agreed) return setError(m.agreeRequired);
    const cheapest = chosen ?? view.offers[0];
    if (!Number.isFinite(capMinor) || (cheapest && capMinor < cheapest.price.amountMinor)) return setError(m.capInvalid);
    await act(async () => {
      const saved = await saveAutoTopUps(esimId, {
        packageId: choices.packageId || null,
        maxCount: Math.min(AUTO_TOP_UP.maxCount, Math.max(1, Math.round(count) || 1)),
        monthlyCapMinor: capMinor,
        lang: locale,
      });
      setLoaded({ status: 'ready', view: saved });
      setChoices({ ...choices, agreed: false });
      // No card yet: Stripe's page saves one now, and comes back here.
      if (!saved.card) window.location.assign((await saveCard(locale, esimId)).url);
    });
  }

  // The button pressed goes with the consent: the focus goes to the switch, which now says Off.
  const off = () =>
    act(async () => {
      setLoaded({ status: 'ready', view: await turnOffAutoTopUps(esimId, locale) });
      toggleRef.current?.focus();
    });
  const addCard = () => act(async () => window.location.assign((await saveCard(locale, esimId)).url));
  const dropCard = () =>
    act(async () => {
      await removeCard();
      setNotice(m.cardRemoved);
      await load();
    });

  const enabled = view?.setting?.enabled ?? false;
  return (
    <section id={`auto-top-up-${esimId}`} aria-labelledby={headingId} className="mt-4 rounded-xl border border-line p-3" data-auto-top-up>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={headingId} className="font-semibold">
          {m.heading}
        </h3>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={toggle}
          className="rounded-full border border-line px-4 py-2 text-sm font-semibold"
          data-auto-top-up-toggle
          ref={toggleRef}
        >
          {view ? (enabled ? m.state_on : m.state_off) : m.heading}
        </button>
      </div>
      <div id={panelId} hidden={!open} className="mt-3 space-y-3 text-sm">
        <div ref={noticeRef} tabIndex={-1}>
          {notice && <Notice>{notice}</Notice>}
        </div>
        <ErrorBox message={loaded.status === 'failed' ? loaded.text : error} />
        {loaded.status === 'failed' && <RetryButton label={m.retry} onRetry={() => void load()} />}
        {loaded.status === 'loading' && <p role="status">{m.loading}</p>}
        {view && choices && (
          <>
            <p>{m.intro}</p>
            {view.setting?.enabled && (
              <div data-auto-top-up-consent>
                <p>{fill(m.agreedOn, { date: formatDateTime(new Date(view.setting.consentedAt), locale) })}</p>
                <blockquote className="mt-1 border-s-4 border-line ps-3 italic">{view.setting.consentText}</blockquote>
                <p className="mt-2">
                  <TextButton onPress={() => void off()} busy={busy} data-auto-top-up-off>
                    {m.turnOff}
                  </TextButton>
                </p>
              </div>
            )}
            {view.card ? (
              <p data-saved-card>
                {savedCardText(m.card, view.card)}{' '}
                <TextButton onPress={() => void dropCard()} busy={busy} data-remove-card>
                  {m.removeCard}
                </TextButton>
              </p>
            ) : (
              <p data-no-card>
                {view.setting?.enabled ? m.needsCard : m.noCard}{' '}
                {view.setting?.enabled && (
                  <TextButton onPress={() => void addCard()} busy={busy} data-save-card>
                    {m.saveCard}
                  </TextButton>
                )}
              </p>
            )}
            {view.offers.length === 0 ? (
              <p>{m.none}</p>
            ) : (
              <form onSubmit={(event) => void submit(event)} noValidate className="space-y-3" data-auto-top-up-form>
                <div>
                  <label htmlFor={`${panelId}-package`} className="block font-medium">
                    {m.package}
                  </label>
                  <select
                    id={`${panelId}-package`}
                    value={choices.packageId}
                    onChange={(event) => setChoices({ ...choices, packageId: event.target.value })}
                    className="mt-1 w-full rounded-xl border border-line bg-surface px-3 py-2"
                  >
                    <option value="">{m.cheapest}</option>
                    {view.offers.map((offer) => (
                      <option key={offer.id} value={offer.id}>
                        {fill(m.packageOption, { plan: topUpText(offer, locale), price: formatPrice(offer.price, locale) })}
                      </option>
                    ))}
                  </select>
                </div>
                <LimitsAndConsent
                  id={panelId}
                  currency={view.currency}
                  limits={choices}
                  onChange={(limits) => setChoices({ ...choices, ...limits })}
                  consent={consent ?? ''}
                  limitsFirst
                  messages={m}
                />
                <button
                  type="submit"
                  disabled={busy}
                  aria-busy={busy}
                  className="rounded-full bg-brand px-5 py-2 font-semibold text-brand-ink disabled:opacity-70"
                  data-auto-top-up-save
                >
                  {busy ? m.saving : enabled ? m.saveChanges : m.turnOn}
                </button>
              </form>
            )}
            {view.charges.length > 0 && (
              <div>
                <h4 className="font-medium">{m.charges}</h4>
                <ul className="mt-1 list-disc ps-5" data-auto-top-up-charges>
                  {view.charges.map((charge) => (
                    <li key={charge.orderId} data-auto-top-up-charge={charge.state}>
                      <span dir="ltr">{charge.number}</span> · {m.states[charge.state]} · {formatPrice(charge.total, locale)} ·{' '}
                      {formatDateTime(new Date(charge.createdAt), locale)}
                    </li>
                  ))}
                </ul>
              </div>
            )}
          </>
        )}
      </div>
    </section>
  );
}

import { useEffect, useRef, useState } from 'react';
import type { SavedCardView } from '../../contract/shop-api.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { getSavedCard, removeCard } from '../../shop-client/saved-card.ts';
import { shopErrorText } from '../../shop-client/shop-error-text.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import Notice from '../../ui/Notice.tsx';
import RetryButton from '../../ui/RetryButton.tsx';
import { PROFILE_CARD_CLASS } from '../account/profile-card.ts';
import type { SavedCardCardMessages } from './messages.ts';
import { cardExpiry, savedCardText } from './saved-card-text.ts';

interface Props {
  m: SavedCardCardMessages;
  locale: Locale;
  /** Where automatic top-ups are turned on, which saves a card. */
  myEsimsPath: string;
}

type Loaded = { status: 'loading' } | { status: 'failed'; text: string } | { status: 'ready'; card: SavedCardView | null };

/**
 * The buyer's saved card on the profile (issue 49): which card it is and what it is for, removable
 * here (at Stripe too, and every eSIM's automatic top-ups turn off); without one, where one is saved.
 */
export default function SavedCardCard({ m, locale, myEsimsPath }: Props) {
  const t = m.savedCard;
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [removed, setRemoved] = useState(false);
  const noticeRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    setLoaded({ status: 'loading' });
    getSavedCard().then(
      ({ card }) => live && setLoaded({ status: 'ready', card }),
      (failure: unknown) => live && setLoaded({ status: 'failed', text: shopErrorText(failure, m, locale) }),
    );
    return () => {
      live = false;
    };
  }, [attempt, m, locale]);

  // The button pressed is gone with the card: focus goes to what happened instead of the page's start.
  useEffect(() => {
    if (removed) noticeRef.current?.focus();
  }, [removed]);

  async function remove() {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await removeCard();
      setLoaded({ status: 'ready', card: null });
      setRemoved(true);
    } catch (failure) {
      setError(shopErrorText(failure, m, locale));
    }
    setBusy(false);
  }

  const card = loaded.status === 'ready' ? loaded.card : undefined;
  const expiry = card && cardExpiry(card, locale);
  return (
    <section className={PROFILE_CARD_CLASS} aria-labelledby="saved-card-heading" data-profile-card="saved-card">
      <h2 id="saved-card-heading" className="text-lg font-semibold">
        {t.profileHeading}
      </h2>
      <div ref={noticeRef} tabIndex={-1} className="mt-3 empty:hidden">
        {removed && <Notice>{t.cardRemoved}</Notice>}
      </div>
      {loaded.status === 'loading' && (
        <p role="status" className="mt-2 text-sm text-ink-muted">
          {t.profileLoading}
        </p>
      )}
      {loaded.status === 'failed' && (
        <div className="mt-3" data-saved-card-error>
          <ErrorBox message={loaded.text} />
          <RetryButton label={t.retry} onRetry={() => setAttempt((n) => n + 1)} />
        </div>
      )}
      {card && (
        <div className="mt-2" data-saved-card>
          <p className="font-medium">{savedCardText(t.card, card)}</p>
          {expiry && (
            <p className="text-sm text-ink-muted" data-card-expiry>
              {fill(t.cardExpires, { date: expiry })}
            </p>
          )}
          <p className="mt-2 text-sm text-ink-muted">{t.profileUse}</p>
          <div className="mt-3 space-y-3">
            <ErrorBox message={error} />
            {/* aria-disabled, not disabled: a failed removal leaves the focus here, to press again. */}
            <button
              type="button"
              onClick={() => void remove()}
              aria-disabled={busy}
              aria-busy={busy}
              className="rounded-full border border-line px-5 py-2 font-semibold aria-disabled:opacity-70"
              data-remove-card
            >
              {t.removeCard}
            </button>
          </div>
        </div>
      )}
      {card === null && (
        <div className="mt-2" data-no-card>
          <p>{t.profileNoCard}</p>
          <a href={myEsimsPath} className="mt-2 inline-block font-semibold text-brand underline" data-my-esims-link>
            {t.myEsims}
          </a>
        </div>
      )}
    </section>
  );
}

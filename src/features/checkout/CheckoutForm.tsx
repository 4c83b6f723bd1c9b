import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Price } from '../../catalogue/schema.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import ErrorBox from '../../ui/ErrorBox.tsx';
import { useHydrated } from '../../ui/use-hydrated.ts';
import { formatPrice, majorUnits } from '../../lib/format.ts';
import { AUTO_TOP_UP } from '../../config/auto-top-ups.ts';
import { consentText, typedMinor } from '../../lib/auto-top-up-consent.ts';
import LimitsAndConsent, { type TypedLimits } from '../auto-top-ups/LimitsAndConsent.tsx';
import { ShopError, type ShopErrorKind } from '../../shop-client/shop-client.ts';
import { tooManyRequestsText } from '../../shop-client/shop-error-text.ts';
import { createCart, createOrder } from '../../shop-client/shop.ts';
import type { CartItem } from '../../contract/shop-api.ts';
import type { CheckoutFormMessages } from './chosen-plan-messages.ts';
import ConsentCheckbox from './ConsentCheckbox.tsx';
import { REFUND_WINDOW_DAYS, TRIP_START_AHEAD_DAYS, TRIP_START_PAST_DAYS } from '../../config/constants.ts';
import { clearExchangeIntent, readExchangeIntent, type ExchangeIntent } from '../esims/exchange-intent.ts';

/** The buyer's own calendar day, `days` from today, as a date input writes it (YYYY-MM-DD). */
function localDay(days: number): string {
  const day = new Date();
  day.setDate(day.getDate() + days);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

interface Props {
  locale: Locale;
  /** The plan bought on its own; absent with `cart`. */
  planId?: string | undefined;
  /** A top-up (?topUp=): the eSIM the plan's data is added to; absent for a new eSIM. */
  topUpOf?: string | undefined;
  /** The price shown to the buyer, in the visitor's currency (issue 34): what the order expects (a cart's total with `cart`). */
  price: Price;
  /**
   * A cart (the cart page, issue 33): its plans and quantities, bought on one payment page. A moved
   * price is handed to `onPrices` (every plan's price now), for the page to show and to ask again.
   */
  cart?:
    | {
        items: CartItem[];
        onPrices: (prices: { planId: string; price: Price }[]) => void;
        buyLabel: string;
        /** Whether the page's own fields (the travellers) are right; false: it showed what is not and took the focus. */
        ready: () => boolean;
      }
    | undefined;
  termsPath: string;
  /** A new eSIM of a plan the partner tops up: automatic top-ups may be ticked (issue 49). */
  autoTopUpOffered?: boolean;
  messages: CheckoutFormMessages;
  /** The API answered a different current price: show it everywhere. */
  onPriceChange: (price: Price) => void;
}

type Consent = 'terms' | 'immediateStart';
const CONSENTS: readonly Consent[] = ['terms', 'immediateStart'];

/**
 * The consents and the pay button (DESIGN 6, German law for digital content): both boxes start
 * unticked and are required; the button commits to pay (BGB § 312j(3)). Buying creates the order
 * and goes to the payment provider's hosted page. One request at a time; a failure keeps the
 * ticks, and a changed price is shown before anything else is sent.
 */
export default function CheckoutForm({
  locale,
  planId,
  topUpOf,
  price,
  cart,
  termsPath,
  autoTopUpOffered,
  messages: m,
  onPriceChange,
}: Props) {
  const hydrated = useHydrated();
  const [ticked, setTicked] = useState<Record<Consent, boolean>>({ terms: false, immediateStart: false });
  const [missing, setMissing] = useState<Record<Consent, boolean>>({ terms: false, immediateStart: false });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const [changedTo, setChangedTo] = useState<Price>();
  // Optional, a new eSIM only: the day after it, an eSIM still offline gets the get-connected checklist.
  const [tripStartsOn, setTripStartsOn] = useState('');
  // Automatic top-ups (issue 49): unticked; at most twice, and twice the plan's price a month, until changed.
  const [auto, setAuto] = useState<TypedLimits>({
    agreed: false,
    maxCount: String(AUTO_TOP_UP.defaultMaxCount),
    cap: String(majorUnits(price) * 2),
  });
  // An exchange started in My eSIMs (a new eSIM only): the unused eSIM this plan replaces.
  const [exchange, setExchange] = useState<ExchangeIntent>();
  useEffect(() => {
    if (!topUpOf && !cart) setExchange(readExchangeIntent());
  }, [topUpOf, cart]);
  const buyButton = useRef<HTMLButtonElement>(null);
  function dropExchange() {
    clearExchangeIntent();
    setExchange(undefined);
  }
  const inFlight = useRef(false);
  const termsBox = useRef<HTMLInputElement>(null);
  const immediateStartBox = useRef<HTMLInputElement>(null);
  const boxes = { terms: termsBox, immediateStart: immediateStartBox };

  // Back from the payment page through the browser's back/forward cache: the page is as it was
  // left, mid-request; make the button usable again.
  useEffect(() => {
    const restored = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      inFlight.current = false;
      setBusy(false);
    };
    window.addEventListener('pageshow', restored);
    return () => window.removeEventListener('pageshow', restored);
  }, []);

  const failureText: Record<Exclude<ShopErrorKind, 'priceChanged' | 'tooManyRequests' | 'notExchangeable'>, string> = {
    network: m.network,
    server: m.errors.server,
    unauthorized: m.errors.unauthorized,
    badInput: m.errors.badInput,
    notFound: m.unknownPlan,
    // Not answered to POST /orders.
    notRefundable: m.errors.server,
    notReplaceable: m.errors.server,
    notShareable: m.errors.server,
    // A top-up of an eSIM that expired or was used up meanwhile, or of another destination.
    cannotTopUp: m.errors.cannotTopUp,
    salesPaused: m.errors.salesPaused,
    // The provider blocked the account: nothing was ordered; the ticks stay.
    accountBlocked: m.errors.accountBlocked,
  };

  /** The automatic top-ups' limits as typed; null when the monthly amount is none or below the plan's price. */
  function autoChoice() {
    const maxCount = Math.min(AUTO_TOP_UP.maxCount, Math.max(1, Math.round(Number(auto.maxCount)) || 1));
    const monthlyCapMinor = typedMinor(auto.cap, price.currency);
    return Number.isFinite(monthlyCapMinor) && monthlyCapMinor > 0 ? { maxCount, monthlyCapMinor } : null;
  }
  const autoConsent = consentText(m.autoTopUp, locale, undefined, autoChoice()?.maxCount ?? AUTO_TOP_UP.defaultMaxCount, {
    amountMinor: autoChoice()?.monthlyCapMinor ?? 0,
    currency: price.currency,
  });

  function tick(consent: Consent, checked: boolean) {
    setTicked((t) => ({ ...t, [consent]: checked }));
    if (checked) setMissing((s) => ({ ...s, [consent]: false }));
  }
  // A box's state: ticked or not, and why it is needed once buying was tried without it.
  const consentState = (consent: Consent) => ({
    checked: ticked[consent],
    onChange: (checked: boolean) => tick(consent, checked),
    error: missing[consent] ? m[`${consent}Required`] : undefined,
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (inFlight.current) return;
    const unticked = CONSENTS.filter((consent) => !ticked[consent]);
    setMissing({ terms: !ticked.terms, immediateStart: !ticked.immediateStart });
    if (unticked.length > 0) {
      boxes[unticked[0]!].current?.focus();
      return;
    }
    if (cart && !cart.ready()) return;
    const offerAuto = autoTopUpOffered && !topUpOf && !cart;
    const autoTopUp = offerAuto && auto.agreed ? autoChoice() : undefined;
    if (autoTopUp === null) return setFailure(m.autoTopUp.capInvalid);
    inFlight.current = true;
    setBusy(true);
    setFailure(undefined);
    setChangedTo(undefined);
    try {
      const consents = { terms: true, immediateStart: true } as const;
      const { checkoutUrl } = cart
        ? await createCart({ items: cart.items, lang: locale, consents, ...(tripStartsOn ? { tripStartsOn } : {}) })
        : await createOrder({
            planId: planId!,
            lang: locale,
            expectedPrice: price,
            consents,
            ...(topUpOf ? { topUpOf } : {}),
            ...(!topUpOf && tripStartsOn ? { tripStartsOn } : {}),
            ...(!topUpOf && exchange ? { exchangeOf: exchange.id } : {}),
            ...(autoTopUp ? { autoTopUp } : {}),
          });
      // Stays busy: the page is leaving for the payment provider.
      window.location.assign(checkoutUrl);
      return;
    } catch (error) {
      const kind = error instanceof ShopError ? error.kind : 'server';
      if (kind === 'priceChanged' && error instanceof ShopError && error.prices && cart) {
        // The cart page shows which plans moved, and its new total is what the next press pays.
        cart.onPrices(error.prices);
      } else if (kind === 'priceChanged' && error instanceof ShopError && error.price) {
        setChangedTo(error.price);
        onPriceChange(error.price);
      } else if (kind === 'notExchangeable' && exchange) {
        // A plan of the same destination: the exchange stays, another plan is to be chosen. Any other
        // refusal ends the exchange, so pressing again simply buys this plan.
        const reason = error instanceof ShopError ? error.reason : undefined;
        if (reason !== 'same_destination') dropExchange();
        setFailure(
          reason === 'same_destination'
            ? fill(m.exchangeSameDestination, { destination: exchange.destinationName })
            : reason === 'replacement'
              ? m.exchangeOfReplacement
              : fill(m.exchangeRefused, { refundDays: String(REFUND_WINDOW_DAYS) }),
        );
      } else if (kind === 'tooManyRequests') {
        // Too many orders in a short time (a per-user limit): the ticks stay, the wait is said.
        const wait = error instanceof ShopError ? error.retryAfterSeconds : undefined;
        setFailure(tooManyRequestsText({ errors: { tooManyRequests: m.tooManyRequests }, checkout: m }, locale, wait));
      } else {
        setFailure(failureText[kind === 'priceChanged' || kind === 'notExchangeable' ? 'server' : kind]);
      }
    }
    inFlight.current = false;
    setBusy(false);
  }

  const [beforeTerms, afterTerms] = m.acceptTerms.split('{{terms}}');
  return (
    <form noValidate onSubmit={submit} className="space-y-5" data-checkout-form>
      {/* Said in the currency it moved in; another picked since shows its own price. */}
      {changedTo?.currency === price.currency && (
        <p role="alert" className="rounded-xl border-2 border-brand bg-surface-muted px-4 py-3 font-semibold" data-price-changed>
          {fill(m.priceChanged, { price: formatPrice(changedTo, locale) })}
        </p>
      )}
      <ErrorBox message={failure} />
      {exchange && (
        <div className="rounded-xl border-2 border-brand bg-surface-muted px-4 py-3" data-exchange-notice>
          <p>{fill(m.exchangeNotice, { destination: exchange.destinationName })}</p>
          <button
            type="button"
            onClick={() => {
              dropExchange();
              // The notice and its button are gone: on to what is left to do.
              buyButton.current?.focus();
            }}
            className="mt-2 rounded-full border border-line px-4 py-2 text-sm font-semibold"
            data-exchange-cancel
          >
            {m.exchangeCancel}
          </button>
        </div>
      )}
      {!topUpOf && (
        <div className="space-y-1">
          <label htmlFor="trip-start" className="block font-semibold">
            {m.tripStart}
          </label>
          <input
            id="trip-start"
            type="date"
            value={tripStartsOn}
            min={localDay(-TRIP_START_PAST_DAYS)}
            max={localDay(TRIP_START_AHEAD_DAYS)}
            onChange={(event) => setTripStartsOn(event.target.value)}
            aria-describedby="trip-start-hint"
            className="rounded-xl border border-line bg-surface px-3 py-2"
            data-trip-start
          />
          <p id="trip-start-hint" className="text-sm text-ink-muted">
            {m.tripStartHint}
          </p>
        </div>
      )}
      {autoTopUpOffered && !topUpOf && !cart && (
        <div className="space-y-3 rounded-2xl border border-line p-4" data-checkout-auto-top-up>
          <LimitsAndConsent
            id="auto-top-up"
            currency={price.currency}
            limits={auto}
            onChange={setAuto}
            consent={autoConsent}
            limitsFirst={false}
            messages={m.autoTopUp}
          />
        </div>
      )}
      <fieldset className="space-y-4 rounded-2xl border border-line p-5">
        <legend className="px-1 text-lg font-semibold">{m.consents}</legend>
        <ConsentCheckbox id="consent-terms" {...consentState('terms')} inputRef={termsBox}>
          {beforeTerms}
          <a href={termsPath} className="font-semibold text-brand underline">
            {m.termsLink}
          </a>
          {afterTerms}
        </ConsentCheckbox>
        <ConsentCheckbox id="consent-immediate-start" {...consentState('immediateStart')} inputRef={immediateStartBox}>
          {m.immediateStart}
        </ConsentCheckbox>
      </fieldset>
      <p className="text-sm text-ink-muted">{m.payOnProvider}</p>
      <button
        type="submit"
        ref={buyButton}
        disabled={busy || !hydrated}
        aria-busy={busy}
        className="flex w-full flex-wrap items-center justify-center gap-x-2 rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink disabled:opacity-70"
        data-buy
      >
        <span>{cart?.buyLabel ?? m.buyNow}</span>
        {/* The amount wraps to the next line as a whole on a narrow phone. */}
        <span className="whitespace-nowrap">
          <span aria-hidden="true">· </span>
          <span data-buy-price>{formatPrice(price, locale)}</span>
        </span>
      </button>
    </form>
  );
}

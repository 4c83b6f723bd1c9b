import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import type { Price } from '../../catalogue/schema.ts';
import { CART_MAX_ESIMS } from '../../config/constants.ts';
import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDataAmount, formatPrice, formatValidity } from '../../lib/format.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import CheckoutForm from '../checkout/CheckoutForm.tsx';
import { priceIn } from '../../pricing/price-in.ts';
import { planDataUrl, type PlanData } from '../checkout/plan-data.ts';
import { useVisitorCurrency } from '../currency/use-visitor-currency.ts';
import type { CartLine } from './cart-storage.ts';
import { $cart, $cartCount, lineIn, maxQuantity, removeFromCart, setQuantity, showIn, updatePrices } from './cart.ts';
import type { CartPageMessages } from './cart-messages.ts';
import TravellerFields from '../travellers/TravellerFields.tsx';
import { EMPTY_TRAVELLER, hasProblems, toTraveller, travellerProblems, type TravellerDraft } from '../travellers/traveller-draft.ts';

interface Props {
  locale: Locale;
  paths: { store: string; terms: string };
  messages: CartPageMessages;
}

/** Each line's plan as the build published it now; null: no longer sold (404). */
type Plans = Map<string, PlanData | null>;

async function loadPlans(lines: readonly CartLine[], signal: AbortSignal): Promise<Plans> {
  const entries = await Promise.all(
    lines.map(async ({ planId }) => {
      const response = await fetch(planDataUrl(planId), { signal });
      if (response.status === 404) return [planId, null] as const;
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return [planId, (await response.json()) as PlanData] as const;
    }),
  );
  return new Map(entries);
}

const iconButton = 'grid size-10 place-items-center rounded-full border border-line text-lg font-semibold disabled:opacity-40';

/**
 * The cart (issue 33): its plans with their destination, quantity (1 to 10, 10 eSIMs an order) and
 * price as the catalogue gives it now, a moved price said before anything is paid, and the consents
 * and Buy all button, which opens one payment page for every eSIM.
 */
export default function CartPage({ locale, paths, messages: m }: Props) {
  const stored = useStore($cart);
  const count = useStore($cartCount);
  // Shown and paid in the visitor's currency (issue 34), following a pick made while the cart is open.
  const currency = useVisitorCurrency(locale);
  const currencyNow = useRef(currency);
  useEffect(() => {
    currencyNow.current = currency;
  }, [currency]);
  const [plans, setPlans] = useState<Plans>();
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [moved, setMoved] = useState<string[]>([]);
  // Who each eSIM is for, by plan, as typed (kept on this page only); problems shown once Buy all was pressed.
  const [travellers, setTravellers] = useState<Record<string, TravellerDraft[]>>({});
  const [checked, setChecked] = useState(false);
  const [opened, setOpened] = useState<Record<string, boolean>>({});
  const planIds = stored.map((l) => l.planId).join(',');

  useEffect(() => {
    const leaving = new AbortController();
    setFailed(false);
    loadPlans($cart.get(), leaving.signal)
      .then((loaded) => {
        setPlans(loaded);
        // The catalogue's price now, in the visitor's currency, is what the cart shows and pays; a moved one is said.
        const now = [...loaded].flatMap(([planId, plan]) => {
          const price = plan && priceIn(plan.prices, currencyNow.current);
          return price ? [{ planId, price }] : [];
        });
        const changed = updatePrices(now);
        if (changed.length) setMoved((before) => [...new Set([...before, ...changed])]);
      })
      .catch(() => {
        if (!leaving.signal.aborted) setFailed(true);
      });
    return () => leaving.abort();
    // Loaded again when plans come or go, not for a quantity.
  }, [planIds, attempt]);

  // Another currency picked: each line at its plan's price in it, remembered (a line already in it keeps its price).
  useEffect(() => {
    if (plans) showIn(currency, (planId) => plans.get(planId)?.prices);
  }, [plans, currency]);
  // Until then (one render), the lines as they will be stored: never two currencies in one total.
  const lines = plans ? stored.map((line) => lineIn(line, plans.get(line.planId)?.prices, currency)) : stored;

  if (lines.length === 0) {
    return (
      <div className="rounded-xl bg-surface-muted p-4" data-cart-empty>
        <p>{m.empty}</p>
        <a href={paths.store} className="mt-3 inline-block rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink">
          {m.toStore}
        </a>
      </div>
    );
  }
  if (failed) {
    return <LoadFailed text={m.loadFailed} retryLabel={m.retry} onRetry={() => setAttempt(attempt + 1)} />;
  }
  if (!plans || lines.some((l) => !plans.has(l.planId))) return <LoadingStatus>{m.loading}</LoadingStatus>;

  const name = (plan: PlanData) =>
    `${plan.destination.names[locale]}: ${formatDataAmount(plan.metadata.dataAmount, locale)}, ${formatValidity(plan.validity, plan.validityUnit, locale)}`;
  const unavailable = lines.filter((l) => plans.get(l.planId) === null);
  const total: Price = {
    amountMinor: lines.reduce((sum, l) => sum + l.price.amountMinor * l.quantity, 0),
    currency: lines[0]!.price.currency,
  };
  const draftsOf = (line: CartLine) => Array.from({ length: line.quantity }, (_, i) => travellers[line.planId]?.[i] ?? EMPTY_TRAVELLER);
  const setDraft = (planId: string, index: number, draft: TravellerDraft) =>
    setTravellers((before) => {
      const drafts = [...(before[planId] ?? [])];
      drafts[index] = draft;
      return { ...before, [planId]: drafts };
    });
  /** Before paying: every traveller typed is whole, else the first problem takes the focus. */
  const travellersReady = () => {
    setChecked(true);
    const wrong = lines.filter((line) => draftsOf(line).some((d) => hasProblems(travellerProblems(d, false))));
    if (wrong.length === 0) return true;
    setOpened((before) => ({ ...before, ...Object.fromEntries(wrong.map((line) => [line.planId, true])) }));
    requestAnimationFrame(() => document.querySelector<HTMLInputElement>('[data-cart-lines] [aria-invalid="true"]')?.focus());
    return false;
  };
  const showPrices = (prices: { planId: string; price: Price }[]) => {
    const changed = updatePrices(prices);
    setMoved((before) => [...new Set([...before, ...changed])]);
  };

  return (
    <div className="space-y-6">
      <ul className="space-y-4" aria-label={m.heading} data-cart-lines>
        {lines.map((line) => {
          const plan = plans.get(line.planId);
          const label = plan ? name(plan) : line.planId;
          const max = maxQuantity(line.planId);
          return (
            <li key={line.planId} className="rounded-2xl border border-line p-4" data-cart-line={line.planId}>
              {/* The flag as a picture beside the name (decorative: the name says the destination), as on My eSIMs. */}
              <p className="flex items-center gap-2 font-semibold">
                {plan && (
                  <img
                    src={plan.destination.flag}
                    alt=""
                    width="30"
                    height="20"
                    className="shrink-0 rounded-sm border border-line"
                    data-cart-flag
                  />
                )}
                <span data-cart-line-name>{label}</span>
              </p>
              {plan === null ? (
                <p className="mt-1 text-sm font-semibold text-brand">{fill(m.unavailable, { plan: label })}</p>
              ) : (
                <p className="text-sm text-ink-muted">{fill(m.each, { price: formatPrice(line.price, locale) })}</p>
              )}
              {moved.includes(line.planId) && (
                <p role="status" className="mt-1 text-sm font-semibold" data-price-moved>
                  {fill(m.priceMoved, { plan: label, price: formatPrice(line.price, locale) })}
                </p>
              )}
              <div className="mt-3 flex flex-wrap items-center justify-between gap-3">
                <div className="flex items-center gap-2">
                  <button
                    type="button"
                    className={iconButton}
                    aria-label={fill(m.fewer, { plan: label })}
                    disabled={line.quantity <= 1}
                    onClick={() => setQuantity(line.planId, line.quantity - 1)}
                  >
                    −
                  </button>
                  <input
                    type="number"
                    inputMode="numeric"
                    min={1}
                    max={max}
                    value={line.quantity}
                    aria-label={fill(m.quantity, { plan: label })}
                    onChange={(event) => setQuantity(line.planId, Number(event.target.value))}
                    className="w-16 rounded-xl border border-line bg-surface px-2 py-2 text-center"
                    data-quantity
                  />
                  <button
                    type="button"
                    className={iconButton}
                    aria-label={fill(m.more, { plan: label })}
                    disabled={line.quantity >= max}
                    onClick={() => setQuantity(line.planId, line.quantity + 1)}
                  >
                    +
                  </button>
                </div>
                <button
                  type="button"
                  className="rounded-full border border-line px-4 py-2 text-sm font-semibold"
                  onClick={() => removeFromCart(line.planId)}
                  data-remove
                >
                  {fill(m.remove, { plan: label })}
                </button>
              </div>
              <details
                open={opened[line.planId] ?? false}
                onToggle={(event) => {
                  const open = event.currentTarget.open;
                  setOpened((before) => ({ ...before, [line.planId]: open }));
                }}
                className="mt-3"
                data-travellers
              >
                <summary className="cursor-pointer text-sm font-semibold">{m.travellers}</summary>
                <p className="mt-2 text-sm text-ink-muted">{m.travellersHint}</p>
                <div className="mt-3 space-y-4">
                  {draftsOf(line).map((draft, i) => (
                    <TravellerFields
                      key={i}
                      draft={draft}
                      problems={checked ? travellerProblems(draft, false) : {}}
                      onChange={(next) => setDraft(line.planId, i, next)}
                      labels={{
                        name: fill(m.travellerName, { n: String(i + 1), plan: label }),
                        email: fill(m.travellerEmail, { n: String(i + 1), plan: label }),
                      }}
                      messages={m.travellerProblems}
                    />
                  ))}
                </div>
              </details>
            </li>
          );
        })}
      </ul>
      <p className="text-sm text-ink-muted">{fill(m.limit, { max: String(CART_MAX_ESIMS) })}</p>
      <div className="space-y-1 rounded-2xl border border-line p-5">
        <p data-cart-count>{fill(m.count, { count: String(count) })}</p>
        <dl>
          <div className="flex flex-wrap justify-between gap-x-4 text-lg font-bold">
            <dt>{m.total}</dt>
            <dd data-cart-total>{formatPrice(total, locale)}</dd>
          </div>
        </dl>
        <p className="text-sm text-ink-muted">{m.vatIncluded}</p>
      </div>
      {unavailable.length === 0 && (
        <CheckoutForm
          locale={locale}
          price={total}
          cart={{
            items: lines.map((line) => {
              const named = draftsOf(line).flatMap((draft) => toTraveller(draft) ?? []);
              return {
                planId: line.planId,
                quantity: line.quantity,
                expectedPrice: line.price,
                ...(named.length > 0 && { travellers: named }),
              };
            }),
            ready: travellersReady,
            onPrices: showPrices,
            buyLabel: m.buyAll,
          }}
          termsPath={paths.terms}
          messages={m.form}
          onPriceChange={() => {}}
        />
      )}
    </div>
  );
}

import { useStore } from '@nanostores/react';
import { useState } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import { addToStoredCart } from '../cart/cart-storage.ts';
import { checkoutUrl } from '../checkout/plan-data.ts';
import { useShownCurrency } from '../currency/use-shown-currency.ts';
import type { PlanView } from './plans.ts';
import { $selectedPlanId } from './selection.ts';

interface Props {
  /** Only what the bar shows: the page's HTML carries the island's props. `amounts`: the price the cart keeps, in the shown currency. */
  plans: Pick<PlanView, 'id' | 'summary' | 'validity' | 'prices' | 'amounts'>[];
  /** The page's language: its currency until the visitor's is known. */
  locale: Locale;
  /** The localized /checkout; the chosen plan goes along as ?plan={id}. */
  checkoutPath: string;
  /** The localized /cart. */
  cartPath: string;
  messages: {
    selectedPlan: string;
    noSelection: string;
    checkout: string;
    priceSoon: string;
    addToCart: string;
    addedToCart: string;
    cartFull: string;
    viewCart: string;
  };
}

/**
 * The bar above the bottom navigation: the selected plan, its price, Add to cart and Checkout
 * (buy this one now), both disabled without a price. Adding writes the stored cart directly
 * (cart-storage.ts): the cart page's store is not loaded here.
 */
export default function CheckoutBar({ plans, locale, checkoutPath, cartPath, messages }: Props) {
  const selectedId = useStore($selectedPlanId);
  const currency = useShownCurrency(locale);
  const plan = plans.find((p) => p.id === selectedId);
  const price = plan?.prices?.[currency];
  const canCheckout = price !== undefined;
  const [added, setAdded] = useState<{ planId: string; outcome: 'added' | 'full' }>();

  function add() {
    // The cart keeps the price the page shows now, in the shown currency.
    if (plan?.amounts) setAdded({ planId: plan.id, outcome: addToStoredCart(plan.id, { amountMinor: plan.amounts[currency], currency }) });
  }

  return (
    <div className="fixed inset-x-0 bottom-16 z-10 border-t border-line bg-surface/95 px-4 py-3 backdrop-blur">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <div aria-live="polite" className="min-w-0">
          {plan ? (
            <>
              <p className="text-xs text-ink-muted">{messages.selectedPlan}</p>
              <p className="font-semibold" data-selected-plan>
                {plan.summary} · {plan.validity}
              </p>
              <p className={price ? 'font-bold text-brand' : 'text-sm text-brand'} data-selected-price>
                {price ?? messages.priceSoon}
              </p>
            </>
          ) : (
            <p className="text-sm text-ink-muted">{messages.noSelection}</p>
          )}
        </div>
        <div className="flex shrink-0 gap-2">
          <button
            type="button"
            disabled={!canCheckout}
            onClick={add}
            className="rounded-full border-2 border-brand px-4 py-2.5 font-semibold text-brand disabled:cursor-not-allowed disabled:opacity-50"
            data-add-to-cart
          >
            {messages.addToCart}
          </button>
          <button
            type="button"
            disabled={!canCheckout}
            onClick={() => plan && window.location.assign(checkoutUrl(checkoutPath, plan.id))}
            className="rounded-full bg-brand px-5 py-3 font-semibold text-brand-ink disabled:cursor-not-allowed disabled:opacity-50"
          >
            {messages.checkout}
          </button>
        </div>
        <p role="status" className="w-full text-sm" data-cart-added>
          {added && (
            <>
              {added.outcome === 'added' ? messages.addedToCart : messages.cartFull}{' '}
              <a href={cartPath} className="font-semibold text-brand underline">
                {messages.viewCart}
              </a>
            </>
          )}
        </p>
      </div>
    </div>
  );
}

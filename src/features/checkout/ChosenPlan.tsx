import { useEffect, useRef, useState } from 'react';
import type { DataAmount, Package } from '../../catalogue/schema.ts';
import type { Currency } from '../../config/currencies.ts';
import { fill, fillPlural } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDataAmount, formatPrice, formatValidity } from '../../lib/format.ts';
import { ShopError } from '../../shop-client/shop-client.ts';
import { listTopUps } from '../../shop-client/shop.ts';
import CheckoutForm from './CheckoutForm.tsx';
import type { ChosenPlanMessages } from './chosen-plan-messages.ts';
import { priceIn } from '../../pricing/price-in.ts';
import { CANCELLED_PARAM, PLAN_PARAM, TOP_UP_PARAM, planDataUrl, type PlanData } from './plan-data.ts';
import LoadingStatus from '../../ui/LoadingStatus.tsx';
import PhoneCheck from './PhoneCheck.tsx';
import LoadFailed from '../../ui/LoadFailed.tsx';
import TopUpChooser from './TopUpChooser.tsx';
import { useVisitorCurrency } from '../currency/use-visitor-currency.ts';

interface Props {
  locale: Locale;
  storePath: string;
  /** This page, in its language: a top-up chosen here comes back to it with ?plan=…&topUp=…. */
  checkoutPath: string;
  /** My eSIMs, where a top-up that cannot be bought sends the buyer back. */
  myEsimsPath: string;
  termsPath: string;
  messages: ChosenPlanMessages;
}

/** What the summary shows, in the page's language: a catalogue plan or one of an eSIM's top-ups. */
interface ShownPlan {
  id: string;
  dataAmount: DataAmount;
  validity: number;
  validityUnit: Package['validityUnit'];
  countries: number;
  /**
   * Its price by currency (issue 34): a catalogue plan's in every one; a top-up's in those the shop
   * API was asked for. A moved price (409) replaces its currency's.
   */
  prices: Partial<Record<Currency, number>>;
  /** A catalogue plan the partner tops up (its facts): automatic top-ups may be ticked (issue 49). */
  topUps?: boolean;
  /** A top-up's destination (from the shop API) has no continent: the buyer already has its eSIM. */
  destination: { name: string; flag: string; continent?: string | undefined; code?: string | undefined };
}

type State = { status: 'loading' | 'noPlan' | 'chooseTopUp' | 'unknown' | 'failed' | 'cannotTopUp' } | { status: 'ready'; plan: ShownPlan };

/** A catalogue plan as the build published it (/plans/{id}.json), 404: not one the build sells. */
async function catalogueLoad(id: string, locale: Locale, signal: AbortSignal): Promise<State> {
  const response = await fetch(planDataUrl(id), { signal });
  if (response.status === 404) return { status: 'unknown' };
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const plan = (await response.json()) as PlanData;
  const { metadata, validity, validityUnit, supportedCountries, price, prices, destination } = plan;
  return {
    status: 'ready',
    plan: {
      id: plan.id,
      dataAmount: metadata.dataAmount,
      validity,
      validityUnit,
      countries: supportedCountries.length,
      topUps: plan.facts.topUp,
      // A /plans/{id}.json from before issue 34 has the euro price alone.
      prices: prices ?? { [price.currency]: price.amountMinor },
      destination: {
        code: destination.code,
        name: destination.names[locale],
        flag: destination.flag,
        continent: destination.continent?.[locale],
      },
    },
  };
}

/**
 * One of the partner's top-ups of the buyer's eSIM: not in the build (each eSIM has its own, at
 * the partner's current prices), so from the shop API, which prices them as the order will.
 */
async function topUpLoad(id: string, esimId: string, locale: Locale, currency: Currency): Promise<State> {
  try {
    const { destination, plans } = await listTopUps(esimId, locale, currency);
    const plan = plans.find((p) => p.id === id);
    if (!plan) return { status: 'unknown' };
    const { dataAmount, validity, validityUnit, supportedCountries, price } = plan;
    const prices = { [price.currency]: price.amountMinor };
    return { status: 'ready', plan: { id, dataAmount, validity, validityUnit, countries: supportedCountries.length, prices, destination } };
  } catch (error) {
    if (error instanceof ShopError && error.kind === 'cannotTopUp') return { status: 'cannotTopUp' };
    if (error instanceof ShopError && error.kind === 'notFound') return { status: 'unknown' };
    throw error;
  }
}

/**
 * The plan chosen on the package page (?plan={id}), read from the build's /plans/{id}.json and
 * shown in the page's language, then the form that buys it. An id the build did not publish
 * (unknown, or without a price) answers 404; anything else that fails can be retried. The
 * payment page's Cancel comes back here with the plan and &cancelled=1. With &topUp={eSIM id}
 * (My eSIMs) the id is one of that eSIM's top-ups (topup-2gb-15d), read from the shop API's list
 * of them instead of the build; with &topUp= alone (the alerts' link, issue 23) the buyer first
 * chooses one of them. A changed price only changes the price shown: the form, and what the buyer
 * ticked, stay.
 */
export default function ChosenPlan({ locale, storePath, checkoutPath, myEsimsPath, termsPath, messages: m }: Props) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [cancelled, setCancelled] = useState(false);
  const [topUpOf, setTopUpOf] = useState<string>();
  const currency = useVisitorCurrency(locale);
  // Read by the load, which a later pick does not repeat: it changes the price shown, not the page (nor what was ticked).
  const currencyNow = useRef(currency);
  useEffect(() => {
    currencyNow.current = currency;
  }, [currency]);

  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    const esimId = query.get(TOP_UP_PARAM) || undefined;
    setCancelled(query.get(CANCELLED_PARAM) === '1');
    setTopUpOf(esimId);
    const id = query.get(PLAN_PARAM);
    if (!id) {
      setState({ status: esimId ? 'chooseTopUp' : 'noPlan' });
      return;
    }
    setState({ status: 'loading' });
    const request = new AbortController();
    (esimId ? topUpLoad(id, esimId, locale, currencyNow.current) : catalogueLoad(id, locale, request.signal))
      .then((loaded) => {
        if (!request.signal.aborted) setState(loaded);
      })
      .catch(() => {
        if (!request.signal.aborted) setState({ status: 'failed' });
      });
    return () => request.abort();
  }, [attempt, locale]);

  // A top-up is priced by the shop API per currency: one picked after it loaded is asked for. Until
  // it answers (or if it cannot), the price loaded is shown, and is what paying expects.
  const topUpPriceMissing = state.status === 'ready' && topUpOf !== undefined && state.plan.prices[currency] === undefined;
  useEffect(() => {
    if (!topUpPriceMissing || !topUpOf || state.status !== 'ready') return;
    let stopped = false;
    const { plan } = state;
    listTopUps(topUpOf, locale, currency).then(
      ({ plans }) => {
        const price = plans.find((p) => p.id === plan.id)?.price;
        if (!stopped && price?.currency === currency)
          setState({ status: 'ready', plan: { ...plan, prices: { ...plan.prices, [price.currency]: price.amountMinor } } });
      },
      () => {},
    );
    return () => {
      stopped = true;
    };
  }, [topUpPriceMissing, topUpOf, locale, currency, state]);

  if (state.status === 'loading') {
    return <LoadingStatus>{m.loading}</LoadingStatus>;
  }
  if (state.status === 'chooseTopUp' && topUpOf) {
    return <TopUpChooser esimId={topUpOf} locale={locale} checkoutPath={checkoutPath} myEsimsPath={myEsimsPath} messages={m} />;
  }
  if (state.status === 'failed') {
    return <LoadFailed text={m.loadFailed} retryLabel={m.retry} onRetry={() => setAttempt(attempt + 1)} data-plan-error />;
  }
  if (state.status !== 'ready') {
    // A top-up that cannot be bought goes back to My eSIMs, where the eSIM's own top-ups are.
    const back = topUpOf ? { href: myEsimsPath, label: m.viewEsims } : { href: storePath, label: m.backToStore };
    return (
      <div className="rounded-xl bg-surface-muted p-4" data-plan-error>
        <p>{state.status === 'noPlan' ? m.noPlan : state.status === 'cannotTopUp' ? m.errors.cannotTopUp : m.unknownPlan}</p>
        <a href={back.href} className="mt-3 inline-block font-semibold text-brand underline">
          {back.label}
        </a>
      </div>
    );
  }

  const { plan } = state;
  // In the visitor's currency; a top-up's in the one it loaded in until the API prices it in a new pick.
  const price = priceIn(plan.prices, currency) ?? priceIn(plan.prices, Object.keys(plan.prices)[0] as Currency)!;
  return (
    <>
      {cancelled && (
        <p role="status" className="rounded-xl bg-surface-muted p-4" data-cancelled>
          {m.cancelled}
        </p>
      )}
      <section
        className="rounded-2xl border border-line p-5"
        aria-labelledby="checkout-summary"
        data-chosen-plan={plan.id}
        data-top-up-of={topUpOf}
      >
        <h2 id="checkout-summary" className="text-lg font-semibold">
          {topUpOf ? m.topUpTitle : m.summary}
        </h2>
        {topUpOf && (
          <p className="mt-2 text-sm" data-top-up-summary>
            {fill(m.topUpSummary, { destination: plan.destination.name })}
          </p>
        )}
        <div className="mt-3 flex items-center gap-3">
          <img src={plan.destination.flag} alt="" width="36" height="24" className="rounded-sm border border-line" />
          <div>
            <p className="font-semibold" data-destination>
              {plan.destination.name}
            </p>
            {plan.destination.continent && (
              <p className="text-sm text-ink-muted" data-continent>
                {plan.destination.continent}
              </p>
            )}
          </div>
        </div>
        <p className="mt-2" data-plan>
          {fill(m.plan, {
            data: formatDataAmount(plan.dataAmount, locale),
            validity: formatValidity(plan.validity, plan.validityUnit, locale),
          })}
        </p>
        <p className="text-sm text-ink-muted" data-countries>
          {fillPlural(m.countries, locale, plan.countries)}
        </p>
        <dl className="mt-4 border-t border-line pt-2">
          <div className="flex justify-between font-bold">
            <dt>{m.total}</dt>
            <dd data-total>{formatPrice(price, locale)}</dd>
          </div>
        </dl>
        <p className="text-sm text-ink-muted">{m.vatIncluded}</p>
      </section>
      {/* A top-up goes to an eSIM already on the phone: nothing to check. */}
      {!topUpOf && <PhoneCheck destination={plan.destination} storePath={storePath} messages={m.phoneCheck} />}
      <CheckoutForm
        locale={locale}
        planId={plan.id}
        topUpOf={topUpOf}
        price={price}
        termsPath={termsPath}
        autoTopUpOffered={!topUpOf && plan.topUps === true}
        messages={m}
        onPriceChange={(moved) =>
          setState({ status: 'ready', plan: { ...plan, prices: { ...plan.prices, [moved.currency]: moved.amountMinor } } })
        }
      />
    </>
  );
}

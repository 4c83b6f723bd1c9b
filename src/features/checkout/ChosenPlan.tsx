import { useEffect, useState } from 'react';
import { fill, fillPlural } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import { formatDataAmount, formatPrice, formatValidity } from '../package/plans.ts';
import CheckoutForm, { type CheckoutMessages } from './CheckoutForm.tsx';
import { CANCELLED_PARAM, PLAN_PARAM, TOP_UP_PARAM, planDataUrl, type PlanData } from './plan-data.ts';
import LoadingStatus from '../shop/LoadingStatus.tsx';
import RetryButton from '../shop/RetryButton.tsx';

interface Props {
  locale: Locale;
  storePath: string;
  termsPath: string;
  messages: CheckoutMessages & { backToStore: string; countries: Record<string, string> };
}

type State = { status: 'loading' | 'noPlan' | 'unknown' | 'failed' } | { status: 'ready'; plan: PlanData };

/**
 * The plan chosen on the package page (?plan={id}), read from the build's /plans/{id}.json and
 * shown in the page's language, then the form that buys it. An id the build did not publish
 * (unknown, or without a price) answers 404; anything else that fails can be retried. The
 * payment page's Cancel comes back here with the plan and &cancelled=1. With &topUp={eSIM id}
 * (My eSIMs) the plan tops that eSIM up instead of buying a new one.
 */
export default function ChosenPlan({ locale, storePath, termsPath, messages: m }: Props) {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [cancelled, setCancelled] = useState(false);
  const [topUpOf, setTopUpOf] = useState<string>();

  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    setCancelled(query.get(CANCELLED_PARAM) === '1');
    setTopUpOf(query.get(TOP_UP_PARAM) || undefined);
    const id = query.get(PLAN_PARAM);
    if (!id) {
      setState({ status: 'noPlan' });
      return;
    }
    setState({ status: 'loading' });
    const request = new AbortController();
    fetch(planDataUrl(id), { signal: request.signal })
      .then(async (response) => {
        if (response.status === 404) return setState({ status: 'unknown' });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        setState({ status: 'ready', plan: (await response.json()) as PlanData });
      })
      .catch(() => {
        if (!request.signal.aborted) setState({ status: 'failed' });
      });
    return () => request.abort();
  }, [attempt]);

  if (state.status === 'loading') {
    return (
      <LoadingStatus>{m.loading}</LoadingStatus>
    );
  }
  if (state.status === 'failed') {
    return (
      <div role="alert" className="rounded-xl bg-surface-muted p-4" data-plan-error>
        <p>{m.loadFailed}</p>
        <RetryButton label={m.retry} onRetry={() => setAttempt(attempt + 1)} />
      </div>
    );
  }
  if (state.status !== 'ready') {
    return (
      <div className="rounded-xl bg-surface-muted p-4" data-plan-error>
        <p>{state.status === 'noPlan' ? m.noPlan : m.unknownPlan}</p>
        <a href={storePath} className="mt-3 inline-block font-semibold text-brand underline">
          {m.backToStore}
        </a>
      </div>
    );
  }

  const { plan } = state;
  return (
    <>
      {cancelled && (
        <p role="status" className="rounded-xl bg-surface-muted p-4" data-cancelled>
          {m.cancelled}
        </p>
      )}
      <section className="rounded-2xl border border-line p-5" aria-labelledby="checkout-summary" data-chosen-plan={plan.id} data-top-up-of={topUpOf}>
        <h2 id="checkout-summary" className="text-lg font-semibold">
          {topUpOf ? m.topUpTitle : m.summary}
        </h2>
        {topUpOf && (
          <p className="mt-2 text-sm" data-top-up-summary>
            {fill(m.topUpSummary, { destination: plan.destination.names[locale] })}
          </p>
        )}
        <p className="mt-3 flex items-center gap-3 font-semibold" data-destination>
          <img src={plan.destination.flag} alt="" width="36" height="24" className="rounded-sm border border-line" />
          {plan.destination.names[locale]}
        </p>
        <p className="mt-2" data-plan>
          {fill(m.plan, {
            data: formatDataAmount(plan.metadata.dataAmount, locale),
            validity: formatValidity(plan.validity, plan.validityUnit, locale),
          })}
        </p>
        <p className="text-sm text-ink-muted" data-countries>
          {fillPlural(m.countries, locale, plan.supportedCountries.length)}
        </p>
        <dl className="mt-4 border-t border-line pt-2">
          <div className="flex justify-between font-bold">
            <dt>{m.total}</dt>
            <dd data-total>{formatPrice(plan.price, locale)}</dd>
          </div>
        </dl>
        <p className="text-sm text-ink-muted">{m.vatIncluded}</p>
      </section>
      <CheckoutForm
        locale={locale}
        planId={plan.id}
        topUpOf={topUpOf}
        price={plan.price}
        termsPath={termsPath}
        messages={m}
        onPriceChange={(price) => setState({ status: 'ready', plan: { ...plan, price } })}
      />
    </>
  );
}

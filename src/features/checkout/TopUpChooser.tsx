import { fill } from '../../i18n/fill.ts';
import type { Locale } from '../../i18n/locales.ts';
import TopUpPlanList from '../esims/TopUpPlanList.tsx';
import { useTopUpPlans } from '../esims/use-top-up-plans.ts';
import type { ChosenPlanMessages } from './chosen-plan-messages.ts';

interface Props {
  esimId: string;
  locale: Locale;
  checkoutPath: string;
  myEsimsPath: string;
  messages: ChosenPlanMessages;
}

/**
 * Checkout with ?topUp= and no plan: the alerts' top-up link (issue 23), which cannot know the
 * top-up the traveller wants. The eSIM's top-ups as My eSIMs offers them, each leading to this
 * checkout with the plan chosen.
 */
export default function TopUpChooser({ esimId, locale, checkoutPath, myEsimsPath, messages: m }: Props) {
  const [plans, load] = useTopUpPlans(esimId, locale, m.topUps, true);

  return (
    <section className="rounded-2xl border border-line p-5" aria-labelledby="top-up-chooser" data-top-up-chooser={esimId}>
      <h2 id="top-up-chooser" className="text-lg font-semibold">
        {m.topUps.topUpHeading}
      </h2>
      {plans.status === 'ready' && (
        <p className="mt-2 text-sm" data-top-up-summary>
          {fill(m.topUpSummary, { destination: plans.answer.destination.name })}
        </p>
      )}
      <div className="mt-3">
        <TopUpPlanList plans={plans} esimId={esimId} locale={locale} checkoutPath={checkoutPath} messages={m.topUps} onRetry={load} />
      </div>
      <a href={myEsimsPath} className="mt-4 inline-block font-semibold text-brand underline">
        {m.viewEsims}
      </a>
    </section>
  );
}

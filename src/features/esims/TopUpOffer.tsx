import { useId, useState } from 'react';
import type { Locale } from '../../i18n/locales.ts';
import type { TopUpOfferMessages } from './my-esims-messages.ts';
import TopUpPlanList from './TopUpPlanList.tsx';
import { useTopUpPlans } from './use-top-up-plans.ts';

interface Props {
  esimId: string;
  locale: Locale;
  checkoutPath: string;
  messages: TopUpOfferMessages;
}

/**
 * 'Top up' on an installed, valid eSIM (issue 15 item 6): the plans that can top it up, asked
 * for when opened, each a link to the same checkout with the eSIM (?plan=…&topUp=…).
 */
export default function TopUpOffer({ esimId, locale, checkoutPath, messages: m }: Props) {
  const panelId = useId();
  const [plans, load] = useTopUpPlans(esimId, locale, m);
  const [open, setOpen] = useState(false);

  function toggle() {
    setOpen(!open);
    // Loaded once; a failed load is tried again on opening.
    if (!open && (plans.status === 'idle' || plans.status === 'failed')) load();
  }

  return (
    <div data-top-up>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={toggle}
        className="rounded-full bg-brand px-4 py-2 text-sm font-semibold text-brand-ink"
        data-top-up-toggle
      >
        {m.topUp}
      </button>
      <div id={panelId} hidden={!open} className="mt-3">
        {plans.status === 'ready' && plans.answer.plans.length > 0 && <h3 className="font-semibold">{m.topUpHeading}</h3>}
        <TopUpPlanList plans={plans} esimId={esimId} locale={locale} checkoutPath={checkoutPath} messages={m} onRetry={load} />
      </div>
    </div>
  );
}

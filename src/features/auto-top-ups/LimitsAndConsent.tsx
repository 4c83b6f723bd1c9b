import { AUTO_TOP_UP } from '../../config/auto-top-ups.ts';
import { fill } from '../../i18n/fill.ts';

/** What the buyer typed and ticked, kept as typed whatever fails. */
export interface TypedLimits {
  maxCount: string;
  cap: string;
  agreed: boolean;
}

interface Props {
  /** Unique on the page: the fields' ids start with it. */
  id: string;
  /** The eSIM's (or the order's) currency: the monthly limit is in it. */
  currency: string;
  limits: TypedLimits;
  onChange: (limits: TypedLimits) => void;
  /** The consent these limits make (consent.ts), shown by the tick box. */
  consent: string;
  /** The limits' fields before the tick box (My eSIMs), or after it, only once ticked (checkout). */
  limitsFirst: boolean;
  messages: { agree: string; maxCount: string; monthlyCap: string };
}

/**
 * Automatic top-ups' limits and the tick box of their consent (issue 49), in My eSIMs and at
 * checkout alike: at most how many, at most how much a calendar month, and the consent's words for
 * them beside the box.
 */
export default function LimitsAndConsent({ id, currency, limits, onChange, consent, limitsFirst, messages: m }: Props) {
  const fields = (
    <div className="flex flex-wrap gap-4">
      <div>
        <label htmlFor={`${id}-count`} className="block font-medium">
          {m.maxCount}
        </label>
        <input
          id={`${id}-count`}
          type="number"
          min={1}
          max={AUTO_TOP_UP.maxCount}
          step={1}
          value={limits.maxCount}
          onChange={(event) => onChange({ ...limits, maxCount: event.target.value })}
          className="mt-1 w-28 rounded-xl border border-line bg-surface px-3 py-2"
        />
      </div>
      <div>
        <label htmlFor={`${id}-cap`} className="block font-medium">
          {fill(m.monthlyCap, { currency })}
        </label>
        <input
          id={`${id}-cap`}
          type="text"
          inputMode="decimal"
          dir="ltr"
          value={limits.cap}
          onChange={(event) => onChange({ ...limits, cap: event.target.value })}
          className="mt-1 w-36 rounded-xl border border-line bg-surface px-3 py-2"
        />
      </div>
    </div>
  );
  return (
    <>
      {limitsFirst && fields}
      <div className="flex items-start gap-2">
        <input
          id={`${id}-agree`}
          type="checkbox"
          checked={limits.agreed}
          onChange={(event) => onChange({ ...limits, agreed: event.target.checked })}
          aria-describedby={`${id}-consent`}
          className="mt-1 h-5 w-5"
        />
        <div>
          <label htmlFor={`${id}-agree`} className="font-semibold">
            {m.agree}
          </label>
          <p id={`${id}-consent`} className="text-sm text-ink-muted" data-consent-text>
            {consent}
          </p>
        </div>
      </div>
      {!limitsFirst && limits.agreed && fields}
    </>
  );
}

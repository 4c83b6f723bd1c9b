import { fill } from '../../i18n/fill.ts';
import type { OpsActionResult } from '../../contract/ops-api.ts';
import { useOps } from './ops-context.ts';

/** What an action did: its result from the API, or a sentence of ours. */
export type Outcome = { label: string; result: OpsActionResult } | { label: string; text: string };

/** The last action's outcome, announced politely (the dialog has closed and focus is back on its button). */
export function OutcomeNotice({ outcome }: { outcome: Outcome | undefined }) {
  const { m } = useOps();
  let text = '';
  let refused = false;
  if (outcome && 'result' in outcome) {
    const { result } = outcome;
    refused = result.outcome === 'refused';
    text = fill(m.actions.outcome, { action: outcome.label, outcome: m.actions[`outcome_${result.outcome}`] });
    if (result.detail) text += ` (${result.detail})`;
  } else if (outcome) text = outcome.text;
  return (
    <div role="status" className="empty:hidden" data-outcome={outcome && 'result' in outcome ? outcome.result.outcome : undefined}>
      {text && (
        <p
          className={`mb-3 rounded-lg border px-3 py-2 text-sm ${refused ? 'border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200' : 'border-green-300 bg-green-50 text-green-900 dark:border-green-800 dark:bg-green-950 dark:text-green-200'}`}
        >
          {text}
        </p>
      )}
    </div>
  );
}

import { useEffect, useRef, useState } from 'react';
import { ESIM_STEP_POLL_INTERVAL_MS } from '../../config/constants.ts';
import type { EsimSteps, EsimView } from '../../contract/shop-api.ts';

/** Steps after which nothing on the phone moves on by itself: no more asking. */
const SETTLED_STEPS: ReadonlySet<EsimView['installStep']> = new Set(['in_use', 'deleted', 'expired']);
/** States in which the eSIM may still move on: being prepared, or to install and on its way to use. */
const MOVING_STATES: ReadonlySet<EsimView['status']> = new Set(['preparing', 'ready', 'active']);

/** Whether some eSIM is not in use yet and may still move on: only then is the page worth polling. */
export const stillMoving = (esims: readonly EsimView[]) =>
  esims.some((e) => MOVING_STATES.has(e.status) && !SETTLED_STEPS.has(e.installStep ?? null));

/**
 * My eSIMs' live status. Polls (GET /esims/steps, every ESIM_STEP_POLL_INTERVAL_MS) rather than
 * server-sent events: the answer is a database read that asks the partner nothing, a page polls only
 * while some eSIM is on its way to use and the tab is visible (document.visibilityState), and plain
 * requests pass every proxy and the API's per-request sign-in check, where a held stream would need
 * its own token renewal and keep an instance's connection per open tab. Answers the time of the
 * last look, the clock of the downloaded-not-installed help.
 */
export function useLiveSteps(
  esims: readonly EsimView[] | undefined,
  read: () => Promise<EsimSteps>,
  onSteps: (steps: EsimSteps['esims']) => void,
): number {
  const [now, setNow] = useState(() => Date.now());
  const polling = !!esims && stillMoving(esims);
  const latest = useRef({ read, onSteps });
  useEffect(() => {
    latest.current = { read, onSteps };
  });
  useEffect(() => {
    if (!polling) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const schedule = () => {
      clearTimeout(timer);
      if (!stopped && document.visibilityState === 'visible') timer = setTimeout(() => void look(), ESIM_STEP_POLL_INTERVAL_MS);
    };
    async function look() {
      try {
        const { esims: steps } = await latest.current.read();
        if (stopped) return;
        setNow(Date.now());
        latest.current.onSteps(steps);
      } catch {
        // A failed look is retried at the next turn: the page keeps what it shows.
      }
      schedule();
    }
    // Back to the tab: look at once, then on the interval; hidden: stop asking.
    const visibility = () => (document.visibilityState === 'visible' ? void look() : clearTimeout(timer));
    document.addEventListener('visibilitychange', visibility);
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', visibility);
    };
    // onSteps and read are the island's own functions (read through the latest render's): the loop
    // restarts only when polling starts or stops.
  }, [polling]);
  return now;
}

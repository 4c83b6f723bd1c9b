import { ALERT_DATA_USED_SHARE, ALERT_VALIDITY_LEFT_MS } from '../../config/constants.ts';
import type { EsimView } from '../../contract/shop-api.ts';
import type { ChecklistMessages, EsimsNamespace } from './messages.ts';
import type { PhoneSystem } from './platform.ts';

/**
 * Why an eSIM is "not working", the one most likely cause (issue 32 item 2), from what the shop
 * knows: its state and install step as the partner last told them, its data use, its validity and
 * the plan's data facts. The phone the page is open on picks the words of each step, not the cause.
 */
export type Cause =
  /** Paid; the partner is still allocating it. */
  | 'preparing'
  /** Cancelled and refunded (or on its way): nothing to fix. */
  | 'refunded'
  /** Replaced at our cost by a newer eSIM of the same plan: that one is the one to use. */
  | 'replaced'
  /** Its data service paused by the provider: only support can say why and resume it. */
  | 'suspended'
  | 'expired'
  /** Deleted from the phone: it cannot be installed again. */
  | 'deleted'
  | 'used_up'
  /** Never downloaded to a phone. */
  | 'not_installed'
  /** Downloaded, the installation not finished. */
  | 'downloaded'
  /** Installed (or turned off again in the phone's settings), its line not on. */
  | 'line_off'
  /** On, no data used since: roaming, the data line, the APN. */
  | 'no_data'
  /** Data flows but little is left, or its validity ends within a day. */
  | 'running_out'
  /** A daily or fair-use plan in use: full speed comes back the next day. */
  | 'slowed'
  /** A daily plan in use whose data stops after the daily volume. */
  | 'daily_cut'
  /** Data flows: the general fixes for a slow or absent connection. */
  | 'in_use';

/** A step of the fix, in the words of the phone's system where its settings differ. */
export type FixStep = 'downloaded' | 'lineOn' | 'dataLine' | 'roaming' | 'apn' | 'airplane' | 'network' | 'restart';

/** What the card offers beside the fix: its install codes, a top-up, a new plan, a new eSIM at our cost, or support. */
export type FixAction = 'showCodes' | 'topUp' | 'buy' | 'replace' | 'support';

export interface Diagnosis {
  cause: Cause;
  steps: FixStep[];
  action: FixAction | null;
}

export type DiagnosedEsim = Pick<EsimView, 'status' | 'installStep' | 'usage' | 'expiresAt' | 'canTopUp' | 'install' | 'replaceable'> & {
  plan: Pick<EsimView['plan'], 'data'>;
};

const CONNECT_STEPS: FixStep[] = ['lineOn', 'dataLine', 'roaming', 'apn', 'restart'];
const IN_USE_STEPS: FixStep[] = ['airplane', 'network', 'restart'];

/** The one most likely cause first: an ended eSIM before a setting, a step on the phone before the network. */
export function diagnose(esim: DiagnosedEsim, now: number): Diagnosis {
  const result = (cause: Cause, steps: FixStep[] = [], action: FixAction | null = null): Diagnosis => ({
    cause,
    // The APN step only where the partner names one.
    steps: steps.filter((step) => step !== 'apn' || !!esim.install?.apn),
    action,
  });
  const refill: FixAction = esim.canTopUp ? 'topUp' : 'buy';
  const { status, installStep, usage } = esim;
  if (status === 'refunding' || status === 'refunded') return result('refunded', [], 'buy');
  if (status === 'replaced') return result('replaced');
  if (status === 'suspended') return result('suspended', [], 'support');
  if (status === 'preparing') return result('preparing');
  const endsAt = esim.expiresAt ? Date.parse(esim.expiresAt) : Number.POSITIVE_INFINITY;
  // Before installation expiresAt is the last day to install it: past it, the eSIM has expired too.
  if (status === 'expired' || installStep === 'expired' || endsAt <= now) return result('expired', [], 'buy');
  // Deleted before it carried data: a new one at our cost (esim.replaceable says the server allows it).
  if (installStep === 'deleted') return result('deleted', [], esim.replaceable ? 'replace' : 'support');
  const used = usage?.usedBytes ?? 0;
  if (status === 'used_up' || (usage && usage.totalBytes > 0 && used >= usage.totalBytes)) return result('used_up', [], refill);
  if (status === 'ready' || installStep === 'released') return result('not_installed', [], 'showCodes');
  if (installStep === 'downloaded') return result('downloaded', ['downloaded', 'restart']);
  if (installStep === 'installed') return result('line_off', ['lineOn', 'dataLine']);
  if (used === 0) return result('no_data', CONNECT_STEPS);
  // The alerts' thresholds: most of the data used, or the validity's last day.
  const usedShare = usage && usage.totalBytes > 0 ? used / usage.totalBytes : 0;
  if (usedShare >= ALERT_DATA_USED_SHARE || endsAt - now <= ALERT_VALIDITY_LEFT_MS) return result('running_out', [], refill);
  const data = esim.plan.data;
  if (data && data.kind !== 'total') return data.after === 'cut' ? result('daily_cut') : result('slowed', IN_USE_STEPS);
  return result('in_use', IN_USE_STEPS);
}

/** What the diagnosis says: its own texts, and the get-connected checklist's steps for each phone system. */
export interface DiagnosisMessages {
  diagnosis: EsimsNamespace['myEsim']['diagnosis'];
  checklist: Pick<ChecklistMessages, PhoneSystem>;
}

/** The fix's steps in the words of this phone's system. */
export function fixStepTexts(steps: readonly FixStep[], system: PhoneSystem, { diagnosis, checklist }: DiagnosisMessages): string[] {
  return steps.map((step) => {
    switch (step) {
      case 'downloaded':
      case 'network':
        return diagnosis.steps[step][system];
      case 'airplane':
      case 'restart':
        return diagnosis.steps[step];
      default:
        return checklist[system][step];
    }
  });
}

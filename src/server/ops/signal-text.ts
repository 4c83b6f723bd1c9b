import type { FraudSignal } from '../fraud/signals.ts';

/** A fraud signal as the back office lists it: its kind and its figure. */
export function signalText(signal: FraudSignal): string {
  switch (signal.kind) {
    case 'shared_card':
      return `shared_card: also used by ${signal.accounts} other account${signal.accounts === 1 ? '' : 's'}`;
    case 'many_orders':
      return `many_orders: ${signal.orders} in 24 h`;
    case 'many_refund_requests':
      return `many_refund_requests: ${signal.requests} in 24 h`;
    case 'disposable_email':
      return `disposable_email: ${signal.domain}`;
    case 'radar_risk':
      return `radar_risk: ${signal.level}${signal.score === null ? '' : ` (${signal.score})`}`;
  }
}

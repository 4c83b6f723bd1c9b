/**
 * Automatic top-ups (issue 49): due when this share of an eSIM's data is left (or it is used up
 * first), at most `defaultMaxCount` an eSIM unless the buyer sets another number up to `maxCount`,
 * and turned off after `refusalsToTurnOff` charges in a row the bank refused. An eSIM they are on
 * for has its usage read by the reconcile job when none was read for `usageMaxAgeMs` (looked for
 * every `usageSweepEveryMs`), so a partner's notification that was lost never leaves it to run
 * out. Apart from constants.ts, whose chunk every page loads: only My eSIMs' JavaScript carries these.
 */
export const AUTO_TOP_UP = {
  leftShare: 0.1,
  defaultMaxCount: 2,
  maxCount: 10,
  refusalsToTurnOff: 3,
  usageMaxAgeMs: 15 * 60_000,
  usageSweepEveryMs: 60_000,
} as const;

/**
 * The alerts a buyer may get about an eSIM (issue 23), in the order they come: the eSIM is ready
 * (a buyer who closed the payment page: push only, its e-mail is the order e-mail, which always
 * goes), online at the destination (its first data, issue 32), still offline the day after the
 * trip started (the get-connected checklist, issue 32), 80 % of the data used, the data used up, 1 day of validity left. Apart from shop-api.ts
 * (which re-exports them) so the pages' code can use them without zod.
 */
export const ALERT_KINDS = ['esim_ready', 'connected', 'not_connected', 'data_80', 'data_used_up', 'validity_1_day'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const ALERT_CHANNELS = ['email', 'push'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];
/** The channels each kind can go by: eSIM ready has no e-mail of its own (the order e-mail carries the eSIM). */
export const ALERT_KIND_CHANNELS: Record<AlertKind, readonly AlertChannel[]> = {
  esim_ready: ['push'],
  connected: ['email', 'push'],
  not_connected: ['email', 'push'],
  data_80: ['email', 'push'],
  data_used_up: ['email', 'push'],
  validity_1_day: ['email', 'push'],
};

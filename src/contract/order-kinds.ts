/**
 * What an order buys: a new eSIM, data and days the buyer added to one of theirs, or an automatic
 * top-up charged on their saved card within the limits they set (issue 49). Apart from shop-api.ts
 * (which re-exports them) so the pages' code can use them without zod.
 */
export const ORDER_KINDS = ['esim', 'top_up', 'auto'] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];

/** Whether an order tops up an eSIM (bought by the buyer, or automatic) rather than buying one. */
export const isTopUpOrder = (order: { kind: OrderKind }) => order.kind !== 'esim';

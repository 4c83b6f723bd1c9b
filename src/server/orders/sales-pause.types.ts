/** The pauses in force: the whole shop's (an operator's), and the partners paused for want of balance. */
export interface SalesPause {
  shop: boolean;
  partners: readonly string[];
}

/** The pauses in force, as POST /orders asks them. */
export interface SalesPauseCache {
  paused(): Promise<SalesPause>;
}

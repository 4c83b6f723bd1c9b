/** Whether sales are paused, as POST /orders asks it. */
export interface SalesPauseCache {
  paused(): Promise<boolean>;
}

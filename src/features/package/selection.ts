import { atom } from 'nanostores';

/** The plan picked on a package page, shared by the plan grid and the checkout bar. */
export const $selectedPlanId = atom<string | null>(null);

/** Selecting the selected plan again deselects it (spec 2). */
export function togglePlan(id: string): void {
  $selectedPlanId.set($selectedPlanId.get() === id ? null : id);
}

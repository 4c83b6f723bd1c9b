import type { Traveller } from '../../contract/shop-api.ts';
import { validateEmail } from '../auth/validation.ts';

/** A traveller as the buyer is typing them (issue 33): a name, and an address or ''. */
export interface TravellerDraft {
  name: string;
  email: string;
}

export const EMPTY_TRAVELLER: TravellerDraft = { name: '', email: '' };

/** What is wrong with a draft, by field; keys name messages in esims.json `traveller`. */
export interface TravellerProblems {
  name?: 'nameMissing';
  email?: 'emailInvalid';
}

/**
 * A draft's problems before anything is sent. An empty draft is fine where a traveller is optional
 * (a cart's eSIM is then the buyer's own); an address needs a name to go with it.
 */
export function travellerProblems(draft: TravellerDraft, nameRequired: boolean): TravellerProblems {
  const problems: TravellerProblems = {};
  if (draft.name.trim() === '' && (nameRequired || draft.email.trim() !== '')) problems.name = 'nameMissing';
  if (draft.email.trim() !== '' && validateEmail(draft.email)) problems.email = 'emailInvalid';
  return problems;
}

export const hasProblems = (problems: TravellerProblems) => problems.name !== undefined || problems.email !== undefined;

/** The traveller the API takes, trimmed; undefined for an empty draft. */
export function toTraveller(draft: TravellerDraft): Traveller | undefined {
  const name = draft.name.trim();
  const email = draft.email.trim();
  if (!name) return undefined;
  return email ? { name, email } : { name };
}

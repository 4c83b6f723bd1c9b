/** The frame of each of the profile's cards. */
export const PROFILE_CARD_CLASS = 'rounded-2xl border border-line p-5';

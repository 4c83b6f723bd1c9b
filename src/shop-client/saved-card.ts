import { createSavedCardClient } from './saved-card-client.ts';
import { shopCall } from './shop-client.ts';
import { SIGNED_IN } from './shop.ts';

/** The saved card's calls as the signed-in visitor (My eSIMs' automatic top-ups and the profile's card only). */
export const { getSavedCard, saveCard, cardSaved, removeCard } = createSavedCardClient(shopCall(SIGNED_IN));

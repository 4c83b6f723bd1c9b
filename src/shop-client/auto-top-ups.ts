import { createAutoTopUpClient } from './auto-top-up-client.ts';
import { shopCall } from './shop-client.ts';
import { SIGNED_IN } from './shop.ts';

/** The automatic top-ups' calls as the signed-in visitor (My eSIMs' island only). */
export const { getAutoTopUps, saveAutoTopUps, turnOffAutoTopUps, saveCard, cardSaved, removeCard } = createAutoTopUpClient(
  shopCall(SIGNED_IN),
);

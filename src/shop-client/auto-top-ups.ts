import { createAutoTopUpClient } from './auto-top-up-client.ts';
import { shopCall } from './shop-client.ts';
import { SIGNED_IN } from './shop.ts';

/** The automatic top-ups' calls as the signed-in visitor (My eSIMs' island only; the card's are saved-card.ts's). */
export const { getAutoTopUps, saveAutoTopUps, turnOffAutoTopUps } = createAutoTopUpClient(shopCall(SIGNED_IN));

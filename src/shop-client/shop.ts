import { firebaseAuth } from '../features/auth/firebase.ts';
import { travellerGrantHeaders } from '../features/travellers/traveller-grant.ts';
import { API_BASE_URL } from './api-base.ts';
import { createShopClient, ShopError, type ShopClientOptions } from './shop-client.ts';

/** The signed-in visitor: their Firebase ID token, and the traveller's link kept in this tab. */
export const SIGNED_IN: ShopClientOptions = {
  baseUrl: API_BASE_URL,
  headers: travellerGrantHeaders,
  async idToken() {
    const auth = firebaseAuth();
    await auth.authStateReady();
    if (!auth.currentUser) throw new ShopError('unauthorized');
    // A token Firebase refreshes when it is about to expire.
    return auth.currentUser.getIdToken();
  },
};

/** The shop API as the signed-in visitor: every call the islands make. */
export const {
  createOrder,
  createCart,
  getCart,
  listOrders,
  getOrder,
  deleteMe,
  listEsims,
  listEsimSteps,
  listTopUps,
  refundEsim,
  replaceEsim,
  diagnoseEsim,
  shareWithTraveller,
  revokeTravellerLink,
  getAlertPreferences,
  saveAlertPreferences,
  getPushPublicKey,
  savePushSubscription,
  deletePushSubscription,
} = createShopClient(SIGNED_IN);

import { TRAVELLER_TOKEN_HEADER } from '../../config/constants.ts';

/**
 * A traveller's link kept in this tab while its holder signs in and buys the eSIM a top-up (issue
 * 33): the shop client sends it with its calls, and the API lets it name that eSIM's top-ups.
 * sessionStorage: it goes with the tab, and never to another page or device.
 */
const KEY = 'traveller-grant';

export function keepTravellerGrant(token: string): void {
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Storage refused (a private mode): the top-up then asks for the eSIM's owner, as without a link.
  }
}

/** The header the shop client adds to its calls in this tab, if a traveller's link was kept. */
export function travellerGrantHeaders(): Record<string, string> {
  try {
    const token = sessionStorage.getItem(KEY);
    return token ? { [TRAVELLER_TOKEN_HEADER]: token } : {};
  } catch {
    return {};
  }
}

import type { Traveller } from '../../contract/shop-api.ts';
import type { Db } from '../db/db.types.ts';
import { esimStatus, inUse } from '../esims/view.ts';
import type { EsimStore } from '../esims/store.types.ts';
import type { UserLimiter } from '../limits.types.ts';
import type { OrderRow } from '../orders/store.types.ts';
import { isUuid } from '../uuid.ts';
import { issueTravellerLink, revokeTravellerLinks } from './links.ts';
import { nameTraveller, travellerEmailed } from './travellers.ts';

export interface ShareDeps {
  db: Db;
  esims: Pick<EsimStore, 'ownedOne'>;
  limits: Pick<UserLimiter, 'take'>;
  /** Fulfilment's e-mails (emails.ts): the traveller's e-mail and the page's address. */
  mail: {
    sendTravellerEmail(order: OrderRow, token: string, to: string): Promise<void>;
    pageUrl(order: OrderRow, token: string): string;
  };
}

export type ShareResult =
  | { outcome: 'no_such_esim' }
  | { outcome: 'not_shareable' }
  | { outcome: 'too_many_attempts'; retryAfterSeconds: number }
  /** The link to pass on; emailedTo: where the traveller's e-mail went (null: none asked, or the relay refused it: pass the link on). */
  | { outcome: 'shared'; link: string; emailedTo: string | null };

/**
 * The buyer gives one of their eSIMs to a traveller, or sends the link again (issue 33): the name
 * and address are saved on the order, a new link replaces the last, and a traveller with an address
 * gets their e-mail. Only a delivered eSIM that has not ended.
 */
export async function shareWithTraveller(deps: ShareDeps, uid: string, esimId: string, traveller: Traveller): Promise<ShareResult> {
  const found = isUuid(esimId) ? await deps.esims.ownedOne(uid, esimId) : undefined;
  if (!found) return { outcome: 'no_such_esim' };
  if (found.order.kind !== 'esim' || !inUse(esimStatus(found.order, found.esim, new Date()))) return { outcome: 'not_shareable' };
  const wait = await deps.limits.take('travellerLinks', uid);
  if (wait !== undefined) return { outcome: 'too_many_attempts', retryAfterSeconds: wait };

  const email = traveller.email ?? null;
  const { order, token } = await deps.db.transaction(async (tx) => {
    await nameTraveller(tx, esimId, traveller.name, email);
    const [order] = await tx.query<OrderRow>('SELECT * FROM orders WHERE id = $1', [esimId]);
    return { order: order!, token: await issueTravellerLink(tx, esimId, email) };
  });
  let emailedTo: string | null = null;
  if (email) {
    try {
      await deps.mail.sendTravellerEmail(order, token, email);
      await travellerEmailed(deps.db, esimId);
      emailedTo = email;
    } catch (error) {
      // The link still works: the buyer is shown it to pass on, and can send it again.
      console.error('travellers: the e-mail to the traveller of', esimId, 'failed:', error instanceof Error ? error.message : error);
    }
  }
  return { outcome: 'shared', link: deps.mail.pageUrl(order, token), emailedTo };
}

/** The buyer stops the traveller's link: the page answers nothing from now on. False: not their eSIM. */
export async function revokeTravellerLink(deps: Pick<ShareDeps, 'db' | 'esims'>, uid: string, esimId: string): Promise<boolean> {
  const found = isUuid(esimId) ? await deps.esims.ownedOne(uid, esimId) : undefined;
  if (!found) return false;
  await revokeTravellerLinks(deps.db, esimId);
  return true;
}

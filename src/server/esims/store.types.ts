import type { InstallStep } from '../../contract/shop-api.ts';
import type { Queryable } from '../db/db.types.ts';
import type { OrderLinks } from '../orders/order-links.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { EsimProfile, EsimStatus, EsimUsage, TopUpResult } from '../partner/partner.types.ts';

/** An eSIM as stored (src/server/db/migrations/0002_delivery.sql). */
/** Which eSIM, as every call to a partner names it: its partner and the partner's own id. */
export type EsimKey = Pick<EsimRow, 'partner' | 'esim_tran_no'>;

export interface EsimRow {
  /** The partner it is at (a registry id, migration 0046): every call for it goes there. */
  partner: string;
  /** The partner's own id for it. */
  esim_tran_no: string;
  order_id: string;
  iccid: string;
  /** The LPA string: a credential, only ever shown to the order's owner. */
  activation_code: string;
  smdp_address: string;
  matching_id: string;
  /** The APN the partner names (migration 0009); null when it names none. */
  apn: string | null;
  status: EsimStatus;
  installed: boolean;
  /** Where it is on the phone (migration 0010), and since when; null until the partner says. */
  install_step: InstallStep | null;
  install_step_at: Date | null;
  expires_at: Date | null;
  total_bytes: number;
  used_bytes: number;
  validity_days: number;
  usage_checked_at: Date | null;
  /** When the diagnosis last read its state from the partner (migration 0021). */
  state_read_at: Date | null;
  /** The data alerts' round (migration 0011): one more with each top-up, so 80 % and used up may come again. */
  data_round: number;
  created_at: Date;
}

/**
 * An eSIM's order as the buyer's reads need it: the sale, its exchange and replacement links
 * (order_links, orders/order-links.ts) and its traveller (order_travellers, travellers/travellers.ts).
 */
export type EsimOrder = OrderRow &
  OrderLinks & {
    traveller_name: string | null;
    traveller_email: string | null;
  };

/** An eSIM order of its owner with its eSIM once allocated. */
export type OwnedEsim = { order: EsimOrder; esim: EsimRow | undefined };

/** The eSIMs the partner allocated, as stored (store.ts); writes given a `tx` run in the caller's transaction. */
export interface EsimStore {
  /** The profile allocated for an order (again: nothing changes; another order's: an error). Announced to its long-polls. */
  saveProfile(tx: Queryable, orderId: string, partner: string, p: EsimProfile): Promise<void>;
  /** What the partner says of an eSIM now (its status, installation, validity and data). */
  refresh(partner: string, profile: EsimProfile): Promise<void>;
  /**
   * Claims the diagnosis' read of the eSIM's state from the partner: true at most once per `everyMs`
   * for an eSIM, across every instance (the caller then reads and `refresh`es it).
   */
  claimStateRead(key: EsimKey, everyMs: number): Promise<boolean>;
  /** The partner's data use figures of an eSIM (used up when all is used). */
  recordUsage(partner: string, usage: EsimUsage): Promise<void>;
  /** A delivered top-up's new totals; the data alerts start a new round. */
  recordTopUp(tx: Queryable, key: EsimKey, result: TopUpResult): Promise<void>;
  /** The eSIM's status as the partner now has it. */
  setStatus(tx: Queryable, key: EsimKey, status: EsimStatus): Promise<void>;
  /** The eSIM an order bought, once allocated. */
  ofOrder(tx: Queryable, orderId: string): Promise<EsimRow | undefined>;
  /** An eSIM by its partner and that partner's id for it. */
  byKey(key: EsimKey): Promise<EsimRow | undefined>;
  /** The owner's eSIMs (orders paid or later, each with its eSIM once allocated), newest first. */
  ownedBy(uid: string): Promise<OwnedEsim[]>;
  /** One of the owner's eSIMs by the id of the order that bought it; someone else's is undefined. */
  ownedOne(uid: string, id: string): Promise<OwnedEsim | undefined>;
  /** The eSIM a traveller's live (not revoked) link names, by the SHA-256 of its token (travellers/links.ts). */
  ofTravellerLink(tokenSha256: string): Promise<OwnedEsim | undefined>;
}

import type { Locale } from '../../i18n/locales.ts';
import type { Db } from '../db/db.ts';
import type { EsimStore } from '../esims/store.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { EsimPartner } from '../partner/partner.ts';
import type { PushSender } from '../push/sender.ts';
import type { AlertPreferenceStore } from './preferences.ts';

export interface AlertsOptions {
  db: Db;
  esims: EsimStore;
  partner: EsimPartner;
  mailer: Mailer;
  push: PushSender;
  preferences: AlertPreferenceStore;
  /** Without a trailing slash: the e-mails' and pushes' links. */
  siteUrl: string;
  /** Without a trailing slash: the one-click unsubscribe URL's base. */
  publicApiUrl: string;
  siteName: string;
  /** The unsubscribe tokens' key. */
  secret: string;
  destinationName: (code: string, lang: Locale) => string;
  /** How long after delivery an unseen eSIM gets the 'eSIM ready' push (tests make it short). */
  readyAfterMs?: number;
  /** How long DATA_USAGE hints gather before one batched usage read (tests make it short). */
  usageBatchMs?: number;
}

// ISSUE 23 SKELETON (helper "alerts engine" fills it in).
export function createAlerts(options: AlertsOptions) {
  void options;
  return {
    /** A DATA_USAGE or VALIDITY_USAGE hint: read the eSIM's real usage (batched), then check. */
    usageHint(esimTranNo: string): void {
      void esimTranNo;
    },
    /** Usage or state of these eSIMs was just stored: send what is due. */
    async check(esimTranNos: readonly string[]): Promise<void> {
      void esimTranNos;
    },
    /** An eSIM order was delivered: 'eSIM ready' later if the buyer has not seen it. */
    delivered(orderId: string): void {
      void orderId;
    },
    /** The reconcile job's part: ready alerts now due, sends that failed. */
    async sweep(): Promise<number> {
      return 0;
    },
    /** Waits for the work under way (a clean stop; tests). */
    async settle(): Promise<void> {},
  };
}

export type Alerts = ReturnType<typeof createAlerts>;

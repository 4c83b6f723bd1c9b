import type { OpsRole } from '../contract/ops-api.ts';

/** Who calls the shop API, and the accounts service behind it (auth.ts: Firebase Authentication). */
export interface Caller {
  uid: string;
  email: string | null;
  /** The accounts service confirmed that the person receives mail at `email` (a link clicked, or a provider that vouches for it). */
  emailVerified: boolean;
  /** When the person last signed in (not when the token was refreshed): irreversible steps want it recent. */
  signedInAt: Date;
  /** The back office's role (Firebase custom claim `role`, issue 30); absent for a buyer. */
  role?: OpsRole | undefined;
}

/** Checks a Firebase ID token; with `checkRevoked`, also that the account exists and its sessions were not revoked. */
export type VerifyIdToken = (token: string, options?: { checkRevoked?: boolean }) => Promise<Caller>;

/** An account as the back office sees it. */
export interface AccountRecord {
  uid: string;
  email: string | null;
  disabled: boolean;
  role: OpsRole | undefined;
}

/** What the shop asks of the accounts service: who calls, deleting an account for good, and the back office's account changes. */
export interface Accounts {
  /** Throws AccountDisabledError (with checkRevoked) when the account is disabled, another error when the token is not valid. */
  verifyIdToken: VerifyIdToken;
  deleteAccount(uid: string): Promise<void>;
  /** The account, or undefined when there is none. */
  find(by: { uid: string } | { email: string }): Promise<AccountRecord | undefined>;
  /** Disables (blocks) or enables an account; disabling also signs it out everywhere. */
  setDisabled(uid: string, disabled: boolean): Promise<void>;
  /** Sets or removes the `role` claim and signs the account out everywhere, so the next token carries the change. */
  setRole(uid: string, role: OpsRole | undefined): Promise<void>;
}

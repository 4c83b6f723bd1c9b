/** The buyer's saved card (saved_cards, migration 0051): their Customer at Stripe and its one card. */
export interface SavedCard {
  uid: string;
  stripe_customer_id: string;
  /** Null until a card is saved. */
  payment_method_id: string | null;
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  saved_at: Date | null;
  created_at: Date;
}

/** One eSIM's automatic top-ups (auto_top_up_settings): the buyer's consent and limits. */
export interface AutoTopUpSetting {
  /** The eSIM's id: the order that bought it. */
  esim_order_id: string;
  /** Null once the account is deleted. */
  uid: string | null;
  enabled: boolean;
  /** A top-up id ('topup-1gb-7d'); null: the cheapest one offered then. */
  package_id: string | null;
  max_count: number;
  monthly_cap_minor: number;
  currency: string;
  consent_text: string;
  consent_lang: string;
  consented_at: Date;
  refusals_in_row: number;
  updated_at: Date;
}

/** A setting as the buyer gives it, with the consent's words as they were shown. */
export interface NewSetting {
  esimOrderId: string;
  uid: string;
  packageId: string | null;
  maxCount: number;
  monthlyCapMinor: number;
  currency: string;
  consentText: string;
  consentLang: string;
}

/** One crossing's automatic top-up (auto_top_ups). */
export interface AutoTopUpRow {
  esim_order_id: string;
  /** 'data:<round>': the eSIM's data round when it crossed 10 % left. */
  crossing: string;
  state: 'due' | 'charging' | 'charged' | 'refused' | 'skipped';
  why: string | null;
  order_id: string | null;
  payment_intent_id: string | null;
  /** The Customer its charge is made for, from when the charge starts (migration 0052). */
  stripe_customer_id: string | null;
  notified_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

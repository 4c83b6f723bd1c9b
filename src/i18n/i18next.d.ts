import type common from '../../locales/en/common.json';
import type home from '../../locales/en/home.json';
import type faq from '../../locales/en/faq.json';
import type legal from '../../locales/en/legal.json';
import type install from '../../locales/en/install.json';
import type help from '../../locales/en/help.json';
import type auth from '../../locales/en/auth.json';
import type account from '../../locales/en/account.json';
import type checkout from '../../locales/en/checkout.json';
import type esims from '../../locales/en/esims.json';
import type mail from '../../locales/en/mail.json';
import type plans from '../../locales/en/plans.json';
import type connect from '../../locales/en/connect.json';
import type unsubscribe from '../../locales/en/unsubscribe.json';
import type alerts from '../../locales/en/alerts.json';
import type ops from '../../locales/en/ops.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: {
      common: typeof common;
      home: typeof home;
      faq: typeof faq;
      legal: typeof legal;
      install: typeof install;
      help: typeof help;
      auth: typeof auth;
      account: typeof account;
      checkout: typeof checkout;
      esims: typeof esims;
      mail: typeof mail;
      plans: typeof plans;
      connect: typeof connect;
      unsubscribe: typeof unsubscribe;
      alerts: typeof alerts;
      ops: typeof ops;
    };
    returnNull: false;
  }
}

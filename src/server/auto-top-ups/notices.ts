import type { Locale } from '../../i18n/locales.ts';
import { localizePath } from '../../i18n/paths.ts';
import { formatDataAmount, formatDateTime, formatPrice, formatValidity } from '../../lib/format.ts';
import type { Db } from '../db/db.types.ts';
import { autoTopUpEmail, type AutoTopUpNews } from '../mail/auto-top-up-email.ts';
import type { Mailer } from '../mail/mailer.types.ts';
import { mailTranslations } from '../mail/translations.ts';
import { createOrderStore } from '../orders/store.ts';
import type { OrderRow } from '../orders/store.types.ts';
import type { PushSender } from '../push/sender.types.ts';
import type { AutoTopUpRow } from './auto-top-ups.types.ts';
import { autoTopUpPagePath, autoTopUpToken } from './links.ts';
import { settingOf } from './store.ts';

/** Telling the buyer of a crossing's top-up that was not charged (charge-job.ts). */
export interface AutoTopUpNotices {
  /** Sends its e-mail and push; throws when the e-mail could not go (the job tries again). */
  tell(row: AutoTopUpRow): Promise<void>;
}

export interface AutoTopUpNoticeDeps {
  db: Db;
  mailer: Mailer;
  push: PushSender;
  /** Without a trailing slash. */
  siteUrl: string;
  siteName: string;
  /** The links' signing key. */
  secret: string;
  destinationName: (code: string, lang: Locale) => string;
}

const planText = (order: OrderRow, lang: Locale) =>
  `${formatDataAmount(order.plan.metadata.dataAmount, lang)}, ${formatValidity(order.plan.validity, order.plan.validityUnit, lang)}`;

/**
 * An e-mail and a push in the buyer's language (the one they agreed in): the bank refused the charge
 * (the link pays the same top-up on-session), or their limit stopped it (the link tops up by hand).
 * Nothing goes to a deleted account (its orders are detached: no uid, no e-mail). The push is a
 * courtesy: a failed one is logged, the e-mail is what must arrive.
 */
export function createAutoTopUpNotices(deps: AutoTopUpNoticeDeps): AutoTopUpNotices {
  const orders = createOrderStore(deps.db);
  return {
    async tell(row) {
      const setting = await settingOf(deps.db, row.esim_order_id);
      const esimOrder = await orders.byId(deps.db, row.esim_order_id);
      if (!setting || !esimOrder?.uid) return;
      const lang = setting.consent_lang as Locale;
      const autoOrder = row.order_id ? await orders.byId(deps.db, row.order_id) : undefined;
      const topUpPath = `${localizePath(lang, '/checkout')}?topUp=${row.esim_order_id}`;
      let news: AutoTopUpNews;
      let pushPath: string;
      if (row.state === 'refused' && autoOrder) {
        pushPath = autoTopUpPagePath(lang, autoTopUpToken(deps.secret, { purpose: 'pay', orderId: autoOrder.id }));
        news = {
          kind: 'refused',
          reason: row.why === 'authentication_required' ? 'authentication_required' : 'declined',
          payUrl: `${deps.siteUrl}${pushPath}`,
          turnedOffAfter: setting.enabled ? null : setting.refusals_in_row,
        };
      } else if (row.why === 'count_limit' || row.why === 'monthly_limit') {
        pushPath = topUpPath;
        news =
          row.why === 'count_limit'
            ? { kind: 'count_limit', maxCount: setting.max_count, topUpUrl: `${deps.siteUrl}${topUpPath}` }
            : {
                kind: 'monthly_limit',
                cap: formatPrice({ amountMinor: setting.monthly_cap_minor, currency: setting.currency }, lang),
                topUpUrl: `${deps.siteUrl}${topUpPath}`,
              };
      } else return;
      const destination = (language: Locale) => deps.destinationName(esimOrder.destination, language);
      const price = (language: Locale) =>
        autoOrder ? formatPrice({ amountMinor: autoOrder.amount_minor, currency: autoOrder.currency }, language) : '';
      if (esimOrder.email) {
        const email = autoTopUpEmail({
          lang,
          news,
          destinationName: destination(lang),
          plan: autoOrder ? planText(autoOrder, lang) : '',
          price: price(lang),
          agreedAt: formatDateTime(setting.consented_at, lang),
          myEsimsUrl: `${deps.siteUrl}${localizePath(lang, '/my-esim')}`,
          turnOffUrl: `${deps.siteUrl}${autoTopUpPagePath(lang, autoTopUpToken(deps.secret, { purpose: 'off', esimId: row.esim_order_id }))}`,
          siteName: deps.siteName,
        });
        await deps.mailer.send({ ...email, to: esimOrder.email });
      }
      const refused = news.kind === 'refused';
      await deps.push
        .sendToUser(
          esimOrder.uid,
          (language) => {
            const { t } = mailTranslations(language);
            const words = { destination: destination(language), price: price(language) };
            return {
              kind: 'auto_top_up',
              title: t(refused ? 'autoTopUp.pushRefusedTitle' : 'autoTopUp.pushLimitTitle'),
              body: t(refused ? 'autoTopUp.pushRefusedBody' : 'autoTopUp.pushLimitBody', words),
              // The page in the buyer's language is what the link names; the device opens it.
              url: pushPath,
              tag: `auto_top_up:${row.esim_order_id}`,
              lang: language,
            };
          },
          { ttlSeconds: 24 * 60 * 60, urgency: 'high' },
        )
        .catch((error: unknown) =>
          console.error('auto top-ups: push failed', row.esim_order_id, error instanceof Error ? error.message : error),
        );
    },
  };
}

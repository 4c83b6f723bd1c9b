import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEsimAccessStandIn, type EsimAccessStandIn } from '../../stand-ins/esim-access/server.ts';
import { startSmtpStandIn, type SmtpStandIn } from '../../stand-ins/smtp/server.ts';
import type { ShopApiOptions } from '../../src/server/wiring.ts';
import { createMailer } from '../../src/server/mail/mailer.ts';
import { createEsimAccessPartner } from '../../src/server/partner/esim-access/adapter.ts';
import type { EsimAccessConfig } from '../../src/server/partner/esim-access/config.ts';
import type { EsimPartner } from '../../src/server/partner/partner.types.ts';
import { ESIM_ACCESS, partnerRegistry } from '../../src/server/partner/registry.ts';

export const PARTNER_WEBHOOK_TOKEN = 'test-partner-webhook-token';

/** The shop's partners when eSIM Access is the only one (as every order before issue 48). */
export const esimAccessOnly = (partner: EsimPartner) => partnerRegistry({ [ESIM_ACCESS]: partner });

export interface DeliveryStandIns {
  partner: EsimAccessStandIn;
  smtp: SmtpStandIn;
  /**
   * What createShopApi needs to deliver through them. Its adapter makes no retries of its own
   * (`retries: 0`), so a test sees each partner failure reach the delivery; `adapter()` makes one
   * that retries as production does.
   */
  options: Pick<ShopApiOptions, 'partners' | 'mailer' | 'partnerWebhookToken' | 'delivery'>;
  /** The eSIM Access adapter in `options.partners`, for a test that asks the partner itself. */
  esimAccess: EsimPartner;
  /**
   * Another adapter for the same stand-in and account (sharing its request budget), with the
   * production defaults of src/server/partner/esim-access/client.ts (3 retries, backoff from 250 ms,
   * 30 s time-outs) except what `config` sets.
   */
  adapter(config?: Omit<EsimAccessConfig, 'accessCode' | 'secretKey' | 'baseUrl'>): EsimPartner;
  /** Where the partner sends its notifications: the API under test, once its URL is known. */
  connect(apiUrl: string): void;
  close(): Promise<void>;
}

/** The eSIM partner and SMTP stand-ins on free ports, with the real adapter and mailer talking to them. */
export async function startDeliveryStandIns(
  settings: { allocationDelayMs?: number; retryDelaysMs?: number[] } = {},
): Promise<DeliveryStandIns> {
  const account = { accessCode: 'test-access-code', secretKey: 'test-secret-key' };
  const partner = await startEsimAccessStandIn({ ...account, allocationDelayMs: settings.allocationDelayMs ?? 200 });
  const dir = mkdtempSync(join(tmpdir(), 'mail-'));
  const smtp = await startSmtpStandIn({ dir });
  const mailer = createMailer({ smtpUrl: smtp.url, from: 'Travel eSIM <orders@localhost>' });
  const esimAccess = createEsimAccessPartner({ ...account, baseUrl: partner.url, retries: 0 });
  return {
    partner,
    smtp,
    esimAccess,
    options: {
      partners: esimAccessOnly(esimAccess),
      mailer,
      partnerWebhookToken: PARTNER_WEBHOOK_TOKEN,
      delivery: { retryDelaysMs: settings.retryDelaysMs ?? [100, 200, 400], allocationPollMs: 300 },
    },
    adapter(config = {}) {
      return createEsimAccessPartner({ ...config, ...account, baseUrl: partner.url });
    },
    connect(apiUrl) {
      partner.setWebhookUrl(`${apiUrl}/webhooks/partner/${PARTNER_WEBHOOK_TOKEN}`);
    },
    async close() {
      mailer.close();
      await partner.close();
      await smtp.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

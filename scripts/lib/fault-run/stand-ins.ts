import { startEsimAccessStandIn, type StandInOptions } from '../../../stand-ins/esim-access/server.ts';
import { startEsimGoStandIn, type EsimGoStandInOptions } from '../../../stand-ins/esim-go/server.ts';
import { startSmtpStandIn } from '../../../stand-ins/smtp/server.ts';
import { STAND_IN_WEBHOOK_SECRET, startStripeStandIn } from '../../../stand-ins/stripe/server.ts';
import type { Fleet } from './fleet.ts';
import { startFront } from './front.ts';

/**
 * What a fleet of API instances (fleet.ts) talks to, in this process: the e-mail, partner (eSIM
 * Access's, and eSIM Go's when `esimGo` is given) and Stripe stand-ins, and the front before the fleet, which buyers and both stand-ins' webhooks go
 * through (the fault run's and the rush bench's). The fleet is made afterwards, with the stand-ins'
 * addresses; `serve` hands it to the front. Each is closed by `cleanup`, last first.
 */
export async function startStandIns(
  cleanup: (() => unknown)[],
  settings: {
    mailDir: string;
    /** The partner's account and its settings (all but the webhook: the front's). */
    partner: Omit<StandInOptions, 'webhookUrl'>;
    partnerWebhookToken: string;
    /** The second partner's account and settings (all but its callback URL: the front's). */
    esimGo?: Omit<EsimGoStandInOptions, 'callbackUrl'>;
  },
) {
  const smtp = await startSmtpStandIn({ dir: settings.mailDir });
  cleanup.push(() => smtp.close());
  let fleet: Fleet | undefined;
  const front = await startFront(() => fleet?.urls() ?? []);
  cleanup.push(() => front.close());
  const api = `${front.url}/api`;
  const partner = await startEsimAccessStandIn({
    ...settings.partner,
    webhookUrl: `${api}/webhooks/partner/${settings.partnerWebhookToken}`,
  });
  cleanup.push(() => partner.close());
  const esimGo = settings.esimGo && (await startEsimGoStandIn({ ...settings.esimGo, callbackUrl: `${api}/webhooks/esim-go` }));
  if (esimGo) cleanup.push(() => esimGo.close());
  // Stripe retries an event for up to three days. The stand-in's own schedule gives up after about a
  // minute, and on a busy machine every instance of a fault run can be down that long: an event
  // given up then leaves a paid order that only the checkout sync finds, 2 minutes on, after the
  // drain. So here its retries go on every 30 s for 4 minutes more, past any outage of the run.
  const stripe = await startStripeStandIn({
    webhookUrl: `${api}/webhooks/stripe`,
    webhookSecret: STAND_IN_WEBHOOK_SECRET,
    retryDelaysMs: [500, 1_000, 2_000, 4_000, 8_000, 16_000, ...Array<number>(8).fill(30_000)],
  });
  cleanup.push(() => stripe.close());
  return {
    smtp,
    front,
    /** The shop API's address behind the front. */
    api,
    partner,
    esimGo,
    stripe,
    serve: (instances: Fleet) => {
      fleet = instances;
    },
  };
}

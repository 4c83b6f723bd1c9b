import { Hono } from 'hono';
import { TRAVELLER_TOKEN_HEADER } from '../../config/constants.ts';
import { ERROR_CODES, type TravellerEsim } from '../../contract/shop-api.ts';
import type { EsimStore } from '../esims/store.types.ts';
import { travellerEsimView, type DestinationOf } from '../esims/view.ts';
import { fail, siteCors } from '../http.ts';
import { langQuery } from '../validation.ts';
import { wellFormedTokenSha256 } from './links.ts';

/**
 * A traveller's eSIM page (issue 33), mounted at /traveller, with no sign-in: the token of their
 * private link comes in a header (the page reads it from the URL's fragment), so it is never in a
 * URL that a server or proxy logs. A revoked, ended, unknown or malformed token gets the same 404:
 * nothing tells a guess from a link that once worked. The token is 256 random bits, so guessing
 * is not a way in; the answer is never cached.
 */
export function travellerRoutes(deps: {
  esims: Pick<EsimStore, 'ofTravellerLink'>;
  destination: DestinationOf;
  allowedOrigins: ReadonlySet<string>;
}) {
  const { esims, destination } = deps;
  return new Hono()
    .use('/esim', siteCors(deps.allowedOrigins, { allowMethods: ['GET'], allowHeaders: [TRAVELLER_TOKEN_HEADER] }))
    .get('/esim', langQuery, async (c) => {
      const { lang } = c.req.valid('query');
      c.header('Cache-Control', 'no-store');
      c.header('X-Robots-Tag', 'noindex');
      const sha256 = wellFormedTokenSha256(c.req.header(TRAVELLER_TOKEN_HEADER));
      const found = sha256 ? await esims.ofTravellerLink(sha256) : undefined;
      const view = found && (await travellerEsimView(found.order, found.esim, destination(found.order.destination, lang)));
      if (!view)
        return fail(
          c,
          404,
          ERROR_CODES.notFound,
          'This link does not open an eSIM: it was revoked, the eSIM ended, or it is not a link of ours.',
        );
      const body: TravellerEsim = view;
      return c.json(body);
    });
}

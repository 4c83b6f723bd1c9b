import { embeddedSnapshot, readSnapshot } from '../catalogue/snapshot.ts';
import { createShopApi, type ShopApi } from './app.ts';
import { firebaseTokenVerifier } from './auth.ts';
import type { ShopConfig } from './config.ts';
import { openDatabase } from './db/open.ts';
import { createStripe } from './payments/stripe.ts';
import type { Db } from './db/db.ts';

/** The shop API with its real parts, from configuration: the database (migrated), Stripe, Firebase token checks. */
export async function startShopApi(
  config: ShopConfig,
  options: { basePath?: string; snapshotFile?: string | undefined } = {},
): Promise<{ handler: ShopApi; db: Db }> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const handler = createShopApi({
    catalogue: options.snapshotFile ? readSnapshot(options.snapshotFile) : embeddedSnapshot(),
    db,
    stripe: createStripe({ secretKey: config.stripeSecretKey, apiUrl: config.stripeApiUrl }),
    stripeWebhookSecret: config.stripeWebhookSecret,
    verifyIdToken: firebaseTokenVerifier(config.firebaseProjectId),
    siteUrl: config.siteUrl,
    allowedOrigins: config.allowedOrigins,
    ...(options.basePath && { basePath: options.basePath }),
  });
  return { handler, db };
}

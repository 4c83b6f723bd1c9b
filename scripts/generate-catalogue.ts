// Generates the committed catalogue snapshot (src/catalogue/snapshot.json) and the flag files
// (public/flags/). Run it after upgrading cldr-core, country-flag-icons or i18n-iso-countries,
// after changing the pricing (src/config/pricing.ts), or to take in the partner's catalogue:
//   npm run catalogue:generate
// Packages and wholesale prices come from eSIM Access when ESIM_ACCESS_CODE and
// ESIM_ACCESS_SECRET are set (ESIM_ACCESS_BASE_URL optional), else from its stand-in, started
// here. Countries, regions, names, flags and aliases: scripts/lib/geography.ts and
// scripts/lib/catalogue-snapshot.ts (DESIGN 4).
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SNAPSHOT_FILE } from '../src/catalogue/snapshot.ts';
import { createEsimAccessPartner } from '../src/server/partner/esim-access/adapter.ts';
import { esimAccessConfigFromEnv } from '../src/server/config.ts';
import { startEsimAccessStandIn } from '../stand-ins/esim-access/server.ts';
import { generateSnapshot } from './lib/catalogue-snapshot.ts';
import { COUNTRY_CODES } from './lib/geography.ts';

const require = createRequire(import.meta.url);
const FLAGS_SOURCE = join(dirname(require.resolve('country-flag-icons/package.json')), '3x2');

// Flags first: the snapshot's invariants check that every flag file exists.
const flagsDir = new URL('../public/flags/', import.meta.url);
mkdirSync(flagsDir, { recursive: true });
for (const code of COUNTRY_CODES) {
  const source = join(FLAGS_SOURCE, `${code}.svg`);
  if (!existsSync(source)) throw new Error(`country-flag-icons has no flag for ${code}`);
  copyFileSync(source, new URL(`${code}.svg`, flagsDir));
}
copyFileSync(join(FLAGS_SOURCE, 'EU.svg'), new URL('region-europe.svg', flagsDir));
// One globe for the other regions: a flag would claim a political union that does not exist.
writeFileSync(
  new URL('region.svg', flagsDir),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><rect width="30" height="20" fill="#6d28d9"/><g fill="none" stroke="#fff" stroke-width="1.2"><circle cx="15" cy="10" r="7"/><path d="M8 10h14M15 3c-4 4-4 10 0 14M15 3c4 4 4 10 0 14"/></g></svg>\n',
);

const real = Boolean(process.env['ESIM_ACCESS_CODE']?.trim() && process.env['ESIM_ACCESS_SECRET']?.trim());
// A throwaway account: the stand-in lives only as long as this run.
const credentials = { accessCode: randomUUID(), secretKey: randomUUID() };
const standIn = real ? undefined : await startEsimAccessStandIn(credentials);
try {
  const partner = createEsimAccessPartner(standIn ? { ...credentials, baseUrl: standIn.url } : esimAccessConfigFromEnv());
  const { snapshot, unmatched } = await generateSnapshot(partner);
  writeFileSync(join(fileURLToPath(new URL('..', import.meta.url)), SNAPSHOT_FILE), JSON.stringify(snapshot) + '\n');
  const prices = snapshot.packages.map((p) => p.price.amountMinor);
  console.log(
    `Catalogue snapshot from ${partner.name}${standIn ? ' (stand-in)' : ''}: ${snapshot.countries.length} countries, ` +
      `${snapshot.regions.length} regions, ${snapshot.packages.length} packages priced ` +
      `${Math.min(...prices) / 100}-${Math.max(...prices) / 100} ${snapshot.packages[0]!.price.currency}.`,
  );
  if (unmatched.length > 0) {
    console.log(
      `Left out ${unmatched.length} partner packages that fit none of our destinations: ${unmatched.slice(0, 20).join(', ')}${unmatched.length > 20 ? ', ...' : ''}`,
    );
  }
} finally {
  await standIn?.close();
}

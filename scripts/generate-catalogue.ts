// Generates the committed catalogue snapshot (src/catalogue/snapshot.json) and the flag files
// (public/flags/). Run it after upgrading cldr-core, country-flag-icons or i18n-iso-countries,
// after changing the pricing (src/config/pricing.ts), to take in the partner's catalogue, and at
// least every MAX_RATE_AGE_DAYS for fresh ECB rates (the build refuses older ones):
//   npm run catalogue:generate
// Packages and wholesale prices come from every partner (issue 48), eSIM Access first (the
// reference: a plan it sells is priced from its package): from eSIM Access when ESIM_ACCESS_CODE
// and ESIM_ACCESS_SECRET are set (ESIM_ACCESS_BASE_URL optional), from each other partner
// (src/server/partner/partner-modules.ts) when its account is (eSIM Go: ESIM_GO_API_KEY, ESIM_GO_BASE_URL
// optional), each else from its stand-in, started here.
// Countries, regions, names, flags and aliases: scripts/lib/geography.ts and
// scripts/lib/catalogue-snapshot.ts (DESIGN 4).
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SNAPSHOT_FILE } from '../src/catalogue/snapshot.ts';
import { createEsimAccessPartner } from '../src/server/partner/esim-access/adapter.ts';
import { esimAccessConfigFromEnv } from '../src/server/config.ts';
import { PARTNER_MODULES } from '../src/server/partner/partner-modules.ts';
import { ESIM_ACCESS } from '../src/server/partner/registry.ts';
import { BASE_CURRENCY, CURRENCIES, RATE_BAND } from '../src/config/currencies.ts';
import { applyRateBand, ExchangeRates, type PerEuro } from '../src/pricing/exchange-rates.ts';
import { ECB_FIXTURE_FILE, startEcbStandIn } from '../stand-ins/ecb/server.ts';
import { startEsimAccessStandIn } from '../stand-ins/esim-access/server.ts';
import { PARTNER_STAND_INS } from '../stand-ins/partner-stand-ins.ts';
import { generateSnapshot } from './lib/catalogue-snapshot.ts';
import { ECB_DAILY_RATES_URL, readEcbRates } from './lib/ecb-rates.ts';
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
// The other partners: each from its account if set, else from its stand-in.
const more = await Promise.all(
  PARTNER_MODULES.map(async (module) => {
    const real = module.fromEnv(process.env);
    const standIn = real ? undefined : await PARTNER_STAND_INS.find((s) => s.id === module.id)?.start({ port: 0 });
    const configured = real ?? (standIn && module.fromEnv(standIn.env));
    if (!configured) throw new Error(`${module.id}: no account in the environment, and no stand-in (stand-ins/partner-stand-ins.ts)`);
    return { configured, standIn };
  }),
);
// The ECB's rates: ECB_RATES_URL (a URL or a file) if set, the ECB's own with the real partner, else its stand-in.
const ratesSource = process.env['ECB_RATES_URL']?.trim() || (real ? ECB_DAILY_RATES_URL : undefined);
const ecbStandIn = ratesSource ? undefined : await startEcbStandIn();
const snapshotPath = join(fileURLToPath(new URL('..', import.meta.url)), SNAPSHOT_FILE);
try {
  const published = await readEcbRates(ratesSource ?? ecbStandIn!.url);
  const previous = previousAppliedRates(snapshotPath);
  const applied = applyRateBand(published.perEuro, previous);
  const partners = [
    {
      id: ESIM_ACCESS,
      catalogue: createEsimAccessPartner(standIn ? { ...credentials, baseUrl: standIn.url } : esimAccessConfigFromEnv()),
      standIn: Boolean(standIn),
    },
    ...more.map(({ configured, standIn }) => ({ id: configured.id, catalogue: configured.create(), standIn: Boolean(standIn) })),
  ];
  const { snapshot, unmatched } = await generateSnapshot(partners, {
    // The stand-in's port changes every run: name what it stands in for.
    source: ecbStandIn
      ? `${ECB_DAILY_RATES_URL} (stand-in, rates of ${ECB_FIXTURE_FILE.split('/').slice(-3).join('/')})`
      : published.source,
    date: published.date,
    published: published.perEuro,
    applied,
  });
  writeFileSync(snapshotPath, JSON.stringify(snapshot) + '\n');
  const euros = snapshot.packages.map((p) => p.prices[BASE_CURRENCY]);
  const named = (p: (typeof partners)[number]) => `${p.catalogue.name}${p.standIn ? ' (stand-in)' : ''}`;
  console.log(
    `Catalogue snapshot from ${partners.map(named).join(' and ')}: ${snapshot.countries.length} countries, ` +
      `${snapshot.regions.length} regions, ${snapshot.packages.length} plans priced ` +
      `${Math.min(...euros) / 100}-${Math.max(...euros) / 100} ${BASE_CURRENCY} and in ${CURRENCIES.length - 1} more currencies.`,
  );
  for (const p of partners) {
    const offered = snapshot.packages.filter((plan) => plan.offers.some((offer) => offer.partner === p.id));
    const alone = offered.filter((plan) => plan.offers.length === 1).length;
    const pricing = offered.filter((plan) => plan.offers[0]!.partner === p.id).length;
    console.log(`${named(p)} offers ${offered.length} plans, ${alone} of them sold by it alone; ${pricing} priced from its package.`);
  }
  console.log(
    `ECB rates of ${published.date}${ecbStandIn ? ' (stand-in)' : ''}, per euro: ` +
      Object.entries(applied)
        .map(
          ([c, rate]) =>
            `${c} ${rate}${rate === published.perEuro[c as keyof PerEuro] ? '' : ` (kept: published ${published.perEuro[c as keyof PerEuro]} is within ${RATE_BAND * 100} %)`}`,
        )
        .join(', '),
  );
  for (const p of partners) {
    const left = unmatched[p.id] ?? [];
    if (left.length === 0) continue;
    console.log(
      `Left out ${left.length} ${p.catalogue.name} packages that fit none of our destinations: ${left.slice(0, 20).join(', ')}${left.length > 20 ? ', ...' : ''}`,
    );
  }
} finally {
  await standIn?.close();
  for (const { standIn } of more) await standIn?.close();
  await ecbStandIn?.close();
}

/** The rates the committed snapshot's prices use, for the band; none when there is no readable snapshot. */
function previousAppliedRates(file: string): PerEuro | undefined {
  if (!existsSync(file)) return undefined;
  const parsed = ExchangeRates.safeParse((JSON.parse(readFileSync(file, 'utf8')) as { exchangeRates?: unknown }).exchangeRates);
  return parsed.success ? parsed.data.applied : undefined;
}

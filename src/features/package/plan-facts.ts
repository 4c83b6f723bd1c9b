import type { Package, PlanFacts } from '../../catalogue/schema.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { T } from '../../i18n/t.ts';
import { formatDataAmount, formatSpeed } from '../../lib/format.ts';

/**
 * The plan facts of issue 22 as a traveller reads them, formatted on the server: the package page
 * renders them in Astro, and the islands get plain strings (no Intl or i18next in the browser).
 */

type Operator = PlanFacts['networks'][number]['operators'][number];
type NetworkType = Operator['networkType'];

/** How a plan's data reads: the card's headline, the line under it (after the limit), the one-line summary. */
export interface DataText {
  /** '1 GB', '1 GB a day', 'Unlimited'. */
  headline: string;
  /** What happens after the daily volume: 'Then 512 kb/s'; undefined for a total volume. */
  limit: string | undefined;
  /** The whole rule in one line: '1 GB in total', '1 GB a day, then 512 kb/s', 'Unlimited, fair use 3 GB/day then 1 Mb/s'. */
  summary: string;
}

export function dataText(pkg: Pick<Package, 'metadata' | 'facts'>, locale: Locale, t: T<'plans'>): DataText {
  const amount = formatDataAmount(pkg.metadata.dataAmount, locale);
  const { data } = pkg.facts;
  if (data.kind === 'total') return { headline: amount, limit: undefined, summary: t('data.total', { amount }) };
  if (data.kind === 'unlimited') {
    const speed = formatSpeed(data.after.slowedToKbps, locale);
    return {
      headline: t('data.unlimited'),
      limit: t('after.fairUse', { amount, speed }),
      summary: t('summary.unlimited', { amount, speed }),
    };
  }
  if (data.after === 'cut')
    return { headline: t('data.daily', { amount }), limit: t('after.cut'), summary: t('summary.dailyCut', { amount }) };
  const speed = formatSpeed(data.after.slowedToKbps, locale);
  return {
    headline: t('data.daily', { amount }),
    limit: t('after.slowed', { speed }),
    summary: t('summary.dailySlowed', { amount, speed }),
  };
}

const TYPE_RANK: Record<NetworkType, number> = { '5G': 4, '4G': 3, '3G': 2, '2G': 1 };
/** Between groups of operators: the language's semicolon. */
const GROUP_SEPARATOR: Partial<Record<Locale, string>> = { ar: '؛ ', ja: '；', zh: '；' };

/**
 * A country's operators grouped by their best network type, best first:
 * 'Telekom, Vodafone · 5G; O2 · 4G' (names listed as the language lists them).
 */
export function networksText(operators: readonly Operator[], locale: Locale): string {
  const byType = new Map<NetworkType, string[]>();
  for (const { name, networkType } of operators) {
    const names = byType.get(networkType) ?? [];
    if (!names.includes(name)) names.push(name);
    byType.set(networkType, names);
  }
  const list = new Intl.ListFormat(locale, { type: 'conjunction', style: 'narrow' });
  return [...byType]
    .sort(([a], [b]) => TYPE_RANK[b] - TYPE_RANK[a])
    .map(([type, names]) => `${list.format(names)} · ${type}`)
    .join(GROUP_SEPARATOR[locale] ?? '; ');
}

/** A fact worth a line, keyed so the page can tell facts all its plans share from those of one plan. */
export interface Fact {
  key: 'validity' | 'install' | 'topUp' | 'hotspot' | 'sms' | 'trafficExit';
  text: string;
}

export interface FactPlaces {
  /** Where validity starts on a first connection: the destination's name. */
  destination: string;
  /** A country's name in the page's language. */
  countryName: (code: string) => string;
}

/** The plan's facts in a fixed order; hotspot only where the partner states it, SMS only when it receives them. */
export function factTexts(facts: PlanFacts, t: T<'plans'>, places: FactPlaces): Fact[] {
  const out: Fact[] = [
    {
      key: 'validity',
      text:
        facts.validityStarts === 'install' ? t('facts.validityInstall') : t('facts.validityFirstConnection', { place: places.destination }),
    },
    { key: 'install', text: t('facts.installWithin', { count: facts.installWithinDays }) },
    { key: 'topUp', text: facts.topUp ? t('facts.topUp') : t('facts.noTopUp') },
  ];
  if (facts.hotspot !== null) out.push({ key: 'hotspot', text: facts.hotspot ? t('facts.hotspot') : t('facts.noHotspot') });
  if (facts.sms) out.push({ key: 'sms', text: t('facts.sms') });
  if (facts.trafficExit) out.push({ key: 'trafficExit', text: t('facts.trafficExit', { country: places.countryName(facts.trafficExit) }) });
  return out;
}

/**
 * Splits the plans' facts into those every plan shares, said once for the page (smaller HTML,
 * less to read), and each plan's own, said on its card.
 */
export function splitFacts(perPlan: readonly (readonly Fact[])[]): { common: string[]; own: string[][] } {
  const shared = (fact: Fact) => perPlan.every((facts) => facts.some((f) => f.key === fact.key && f.text === fact.text));
  const first = perPlan[0] ?? [];
  const common = perPlan.length > 0 ? first.filter(shared) : [];
  const commonKeys = new Set(common.map((f) => f.key));
  return {
    common: common.map((f) => f.text),
    own: perPlan.map((facts) => facts.filter((f) => !commonKeys.has(f.key)).map((f) => f.text)),
  };
}

/** One country's networks, for the page's list. */
export interface CountryNetworks {
  code: string;
  name: string;
  networks: string;
}

/** Plans that share the same networks, and those networks per country, sorted by the country's name. */
export interface NetworkGroup {
  planIds: string[];
  countries: CountryNetworks[];
}

/**
 * The destination's networks, once for all plans that share them: usually one group (every plan
 * of a destination uses the same operators); more only where the partner's plans differ.
 */
export function networkGroups(
  packages: readonly Pick<Package, 'id' | 'facts'>[],
  locale: Locale,
  countryName: (code: string) => string,
): NetworkGroup[] {
  const collator = new Intl.Collator(locale);
  const groups = new Map<string, NetworkGroup>();
  for (const pkg of packages) {
    const countries = pkg.facts.networks
      .map((n) => ({ code: n.country, name: countryName(n.country), networks: networksText(n.operators, locale) }))
      .sort((a, b) => collator.compare(a.name, b.name));
    const signature = JSON.stringify(countries);
    const group = groups.get(signature);
    if (group) group.planIds.push(pkg.id);
    else groups.set(signature, { planIds: [pkg.id], countries });
  }
  return [...groups.values()];
}

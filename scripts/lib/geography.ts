import { createRequire } from 'node:module';

/**
 * Our countries and regions (DESIGN 4), from UN M49 containment in cldr-core with the
 * adjustments a traveller expects. The snapshot generator names and flags them; the eSIM Access
 * stand-in sells plans in them (a real partner's regions may differ: see catalogue-snapshot.ts).
 */
const require = createRequire(import.meta.url);
const containment: Record<string, { _contains?: string[] }> = require('cldr-core/supplemental/territoryContainment.json').supplemental
  .territoryContainment;

/** Uninhabited territories sell no data plans (DESIGN 4); EA, IC and CQ are not ISO countries. */
const EXCLUDED = new Set(['AQ', 'BV', 'HM', 'TF', 'GS', 'UM', 'EA', 'IC', 'CQ']);

function leaves(code: string): string[] {
  const children = containment[code]?._contains;
  if (!children) return /^[A-Z]{2}$/.test(code) ? [code] : [];
  return children.flatMap(leaves);
}
const only = (codes: string[]) => [...new Set(codes)].filter((c) => !EXCLUDED.has(c)).sort();
const without = (codes: string[], drop: string[]) => codes.filter((c) => !drop.includes(c));

const CAUCASUS = ['AM', 'AZ', 'GE'];
const westernAsia = leaves('145');
const CONTINENTAL: Record<string, string[]> = {
  europe: only([...leaves('150'), 'CY', 'TR']),
  asia: only([...leaves('143'), ...leaves('030'), ...without(leaves('034'), ['IR']), ...leaves('035'), ...CAUCASUS]),
  mena: only([...without(westernAsia, [...CAUCASUS, 'CY']), 'IR', ...leaves('015')]),
  africa: only(leaves('002')),
  'north-america': only([...leaves('021'), 'MX']),
  'latin-america': only([...leaves('013'), ...leaves('005')]),
  caribbean: only(leaves('029')),
  oceania: only(without(leaves('009'), leaves('QO'))),
};

/** Every country we sell in, sorted. */
export const COUNTRY_CODES: readonly string[] = only(Object.values(CONTINENTAL).flat());

/** Our regions in display order, each with its countries sorted; 'global' is every country. */
export const REGIONS: Readonly<Record<string, readonly string[]>> = { ...CONTINENTAL, global: COUNTRY_CODES };

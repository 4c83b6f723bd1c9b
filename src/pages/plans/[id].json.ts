import type { APIRoute, GetStaticPaths } from 'astro';
import { buildCatalogue } from '../../catalogue/build-catalogue.ts';
import { continentNames } from '../../catalogue/continents.ts';
import { planData, type PlanData } from '../../features/checkout/plan-data.ts';

/** /plans/{id}.json for every plan that can be bought: what checkout shows (src/features/checkout). */
export const getStaticPaths = (async () =>
  planData(await buildCatalogue(), continentNames).map((plan) => ({ params: { id: plan.id }, props: { plan } }))) satisfies GetStaticPaths;

export const GET: APIRoute<{ plan: PlanData }> = ({ props }) => Response.json(props.plan);

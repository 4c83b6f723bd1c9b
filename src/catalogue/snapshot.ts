import snapshotJson from './snapshot.json' with { type: 'json' };
import { Snapshot, describeIssues } from './schema.ts';

/** The committed snapshot, validated: the API's embedded default source. */
export function embeddedSnapshot(): Snapshot {
  return parseSnapshot(snapshotJson, 'src/catalogue/snapshot.json');
}

export function parseSnapshot(data: unknown, source: string): Snapshot {
  const parsed = Snapshot.safeParse(data);
  if (!parsed.success) throw new Error(`Catalogue snapshot ${source} is invalid:\n${describeIssues(parsed.error)}`);
  return parsed.data;
}

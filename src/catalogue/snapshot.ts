import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { flagFilesExist } from './flag-files.ts';
import { Snapshot, describeIssues } from './schema.ts';

/** The committed snapshot, relative to the project root (see flag-files.ts). */
export const SNAPSHOT_FILE = 'src/catalogue/snapshot.json';

/** The committed snapshot, validated: the API's embedded default source. */
export function embeddedSnapshot(): Snapshot {
  return readSnapshot(SNAPSHOT_FILE);
}

/** Reads and validates a snapshot file; every failure, JSON syntax included, names the file. */
export function readSnapshot(file: string, root = process.cwd()): Snapshot {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(resolve(root, file), 'utf8'));
  } catch (error) {
    throw new Error(`Catalogue snapshot ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseSnapshot(data, file, root);
}

export function parseSnapshot(data: unknown, source: string, root = process.cwd()): Snapshot {
  const parsed = Snapshot.superRefine(flagFilesExist(root)).safeParse(data);
  if (!parsed.success) throw new Error(`Catalogue snapshot ${source} is invalid:\n${describeIssues(parsed.error, data)}`);
  return parsed.data;
}

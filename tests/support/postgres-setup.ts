// Vitest global setup of the unit project: one real PostgreSQL server for the whole run, its URL
// handed to tests as inject('postgresUrl'); tests/support/databases.ts makes a database per use.
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../../scripts/lib/postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCatalogueApi } from '../../src/catalogue/api.ts';
import { embeddedSnapshot } from '../../src/catalogue/snapshot.ts';
import { serveCatalogue } from '../../scripts/lib/catalogue-server.ts';
import { build, removeBuilds } from '../support/build.ts';

/**
 * A broken or unreachable catalogue fails the real build loudly, naming the problem, and
 * publishes nothing. Each build writes to a temporary folder, never to dist/.
 */
afterAll(removeBuilds);

describe('the build and a bad catalogue', () => {
  it('fails on invalid data with a message naming the call, the record and the field', async () => {
    const snapshot = embeddedSnapshot();
    const broken = structuredClone(snapshot);
    broken.packages[0]!.validity = -7;
    const api = await serveCatalogue(createCatalogueApi(broken));
    try {
      const { status, output, outDir } = await build({ CATALOGUE_API_URL: api.url });
      expect(status).not.toBe(0);
      expect(output).toContain(`GET /packages?regionId=${snapshot.packages[0]!.destination} returned invalid data`);
      expect(output).toMatch(/\[0\]\.validity \(id [a-z0-9-]+\): .*(>0|positive|greater)/i);
      expect(existsSync(join(outDir, 'store.html'))).toBe(false);
    } finally {
      await api.close();
    }
  });

  it('fails on a broken invariant, a flag file that does not exist, naming the record', async () => {
    const broken = embeddedSnapshot();
    const japan = broken.countries.findIndex((c) => c.code === 'JP');
    broken.countries[japan]!.flag = '/flags/JP-missing.svg';
    const api = await serveCatalogue(createCatalogueApi(broken));
    try {
      const { status, output, outDir } = await build(api.url);
      expect(status).not.toBe(0);
      expect(output).toContain('Catalogue is inconsistent');
      expect(output).toContain(`countries[${japan}].flag (code JP): public/flags/JP-missing.svg does not exist`);
      expect(existsSync(join(outDir, 'store.html'))).toBe(false);
    } finally {
      await api.close();
    }
  });

  it('fails when the API is unreachable after retries', async () => {
    const { status, output, outDir } = await build({ CATALOGUE_API_URL: 'http://127.0.0.1:9' });
    expect(status).not.toBe(0);
    expect(output).toMatch(/failed after 4 attempt\(s\)/);
    expect(existsSync(join(outDir, 'index.html'))).toBe(false);
  });
});

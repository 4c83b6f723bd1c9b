import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build, removeBuilds } from '../support/build.ts';

/**
 * A production build (a real PUBLIC_SITE_URL) cannot quietly sign visitors in against the
 * Auth emulator: a partial Firebase configuration stops the real build, naming what is missing,
 * and a complete one reaches the pages' code.
 */
afterAll(removeBuilds);

const REAL_SITE = { PUBLIC_SITE_URL: 'https://shop.example-travel.com' };

describe('the build and the Firebase configuration', () => {
  it('stops on a real origin with a partial configuration, naming exactly the missing variables', async () => {
    const { status, output } = await build({
      ...REAL_SITE,
      PUBLIC_FIREBASE_API_KEY: 'AIza-shop-key',
      PUBLIC_FIREBASE_AUTH_DOMAIN: 'shop-travel.firebaseapp.com',
      PUBLIC_FIREBASE_PROJECT_ID: '',
      PUBLIC_FIREBASE_APP_ID: '',
    });
    expect(status).not.toBe(0);
    const named = output.match(/Missing: ([A-Z_]+(?:, [A-Z_]+)*)/)?.[1]?.split(', ');
    expect(named).toEqual(['PUBLIC_FIREBASE_PROJECT_ID', 'PUBLIC_FIREBASE_APP_ID']);
    expect(output).toContain('PUBLIC_SITE_URL is https://shop.example-travel.com, a real origin');
  });

  it('builds a real origin with a complete configuration, which the sign-in code uses', async () => {
    const { status, output, outDir } = await build({
      ...REAL_SITE,
      PUBLIC_FIREBASE_API_KEY: 'AIza-shop-key',
      PUBLIC_FIREBASE_AUTH_DOMAIN: 'shop-travel.firebaseapp.com',
      PUBLIC_FIREBASE_PROJECT_ID: 'shop-travel',
      PUBLIC_FIREBASE_APP_ID: '1:42:web:shop',
    });
    expect(status, output).toBe(0);
    const code = readdirSync(join(outDir, '_astro'))
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(join(outDir, '_astro', file), 'utf8'))
      .find((text) => text.includes('AIza-shop-key'));
    expect(code).toContain('shop-travel.firebaseapp.com');
    expect(code).toContain('1:42:web:shop');
  });
});

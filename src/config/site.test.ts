import { describe, expect, it } from 'vitest';
import { DEFAULT_SITE_URL, siteUrl } from './site.ts';

describe('site URL', () => {
  it('defaults to the example domain and takes PUBLIC_SITE_URL otherwise', () => {
    expect(siteUrl({})).toBe(DEFAULT_SITE_URL);
    expect(siteUrl({ PUBLIC_SITE_URL: 'https://shop.example.org/' })).toBe('https://shop.example.org');
  });

  it('refuses a URL with a path, which would break every absolute link', () => {
    expect(() => siteUrl({ PUBLIC_SITE_URL: 'https://shop.example.org/de' })).toThrow(/origin without a path/);
  });
});

import { describe, expect, it } from 'vitest';
import { apiBaseUrl, LOCAL_API_BASE_URL } from './env.ts';

/** Where the pages send their shop API calls (checkout, history, account deletion). */
describe('apiBaseUrl', () => {
  it('is the local API when the site is not a real origin, the default included', () => {
    expect(LOCAL_API_BASE_URL).toBe('http://127.0.0.1:8788/api');
    expect(apiBaseUrl({})).toBe(LOCAL_API_BASE_URL);
    expect(apiBaseUrl({ PUBLIC_SITE_URL: 'http://127.0.0.1:4329' })).toBe(LOCAL_API_BASE_URL);
    expect(apiBaseUrl({ PUBLIC_SITE_URL: 'https://shop.example.com' })).toBe(LOCAL_API_BASE_URL);
  });

  it('is /api on a real origin: the same origin, through the Hosting rewrite', () => {
    expect(apiBaseUrl({ PUBLIC_SITE_URL: 'https://shop.example-travel.com' })).toBe('/api');
  });

  it('is PUBLIC_API_BASE_URL when that is set, on any origin; a blank value counts as unset', () => {
    const api = 'https://api.example-travel.com/v1';
    expect(apiBaseUrl({ PUBLIC_API_BASE_URL: api })).toBe(api);
    expect(apiBaseUrl({ PUBLIC_SITE_URL: 'https://shop.example-travel.com', PUBLIC_API_BASE_URL: ` ${api} ` })).toBe(api);
    expect(apiBaseUrl({ PUBLIC_SITE_URL: 'https://shop.example-travel.com', PUBLIC_API_BASE_URL: '  ' })).toBe('/api');
  });
});

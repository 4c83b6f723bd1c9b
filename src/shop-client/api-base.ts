import { PUBLIC_API_BASE_URL } from 'astro:env/client';

/** The shop API's base URL as the build configured it (src/config/env.ts: apiBaseUrl), without a trailing slash. */
export const API_BASE_URL = PUBLIC_API_BASE_URL.replace(/\/+$/, '');

import { PUBLIC_FIREBASE_API_KEY, PUBLIC_FIREBASE_APP_ID, PUBLIC_FIREBASE_AUTH_DOMAIN, PUBLIC_FIREBASE_PROJECT_ID } from 'astro:env/client';
import type { FirebaseOptions } from 'firebase/app';
import { DEMO_FIREBASE_CONFIG } from '../../config/env.ts';

/**
 * The Firebase project the site signs in with, without loading Firebase (stored-token.ts reads
 * its stored session by the API key). Production configuration comes from PUBLIC_FIREBASE_*
 * variables (public by design; the build refuses a partial one, src/config/env.ts); without them
 * the site talks to the Auth emulator of the demo project.
 */
export const USES_EMULATOR = !PUBLIC_FIREBASE_API_KEY;

export const FIREBASE_CONFIG: FirebaseOptions = USES_EMULATOR
  ? DEMO_FIREBASE_CONFIG
  : // The build stops unless all four are set (checkBuildEnv).
    ({
      apiKey: PUBLIC_FIREBASE_API_KEY,
      authDomain: PUBLIC_FIREBASE_AUTH_DOMAIN,
      projectId: PUBLIC_FIREBASE_PROJECT_ID,
      appId: PUBLIC_FIREBASE_APP_ID,
    } as FirebaseOptions);

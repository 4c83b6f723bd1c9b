// Writes firebase.json's Content-Security-Policies (scripts/lib/csp.ts) for the last build's inline
// scripts and styles and the configured Firebase auth domain (PUBLIC_FIREBASE_AUTH_DOMAIN, from
// the environment or .env; the demo project's without one). Run after `npm run build` when
// tests/site/hosting.test.ts names a missing hash, and before deploying with a Firebase project.
import { resolve } from 'node:path';
import { loadEnv } from 'vite';
import { firebaseAuthDomain } from '../src/config/env.ts';
import { policyRules, updatePolicies } from './lib/csp.ts';

const authDomain = firebaseAuthDomain(loadEnv('production', process.cwd(), ''));
for (const { source, policy } of policyRules(updatePolicies(resolve('dist'), authDomain))) console.log(`${source}\n  ${policy}\n`);

import { createRequire } from 'node:module';
import { policyRules, type FirebaseConfig } from '../../scripts/lib/csp.ts';

/**
 * Reads firebase.json's header rules as Firebase Hosting does: with the glob matcher of the
 * Hosting emulator (superstatic, inside firebase-tools), sources taken from the root.
 */
const require = createRequire(createRequire(import.meta.url).resolve('firebase-tools'));
const { configMatcher } = require('superstatic/lib/utils/patterns.js') as {
  configMatcher: (path: string, rule: { source: string }) => boolean;
};

/** Every Content-Security-Policy that firebase.json sends with a request path. */
export const policiesFor = (config: FirebaseConfig, path: string): string[] =>
  policyRules(config)
    .filter(({ source }) => configMatcher(path, { source: source.startsWith('/') ? source : `/${source}` }))
    .map(({ policy }) => policy);

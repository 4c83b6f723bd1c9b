// Sets firebase.json's Content-Security-Policy hashes to the inline scripts and styles of the
// last build. Run after `npm run build` when tests/site/hosting.test.ts names a missing hash.
import { resolve } from 'node:path';
import { contentSecurityPolicy, updatePolicyHashes } from './lib/csp.ts';

console.log(contentSecurityPolicy(updatePolicyHashes(resolve('dist'))));

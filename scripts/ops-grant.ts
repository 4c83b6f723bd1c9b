// npm run ops:grant -- <email> <support|admin|none>: gives an account a back-office role (issue 30),
// or takes it away. Sets the Firebase custom claim `role` and revokes the account's refresh tokens,
// so the change applies at its next request (DESIGN 8). Locally (FIREBASE_AUTH_EMULATOR_HOST, the
// default when no project is named) the Auth emulator's account; in production the project's
// (FIREBASE_PROJECT_ID and the service account's credentials, GOOGLE_APPLICATION_CREDENTIALS).
import { OPS_ROLES, type OpsRole } from '../src/contract/ops-api.ts';
import { firebaseAccounts } from '../src/server/auth.ts';

const [email, wanted] = process.argv.slice(2);
const roles: readonly string[] = [...OPS_ROLES, 'none'];
if (!email?.includes('@') || !wanted || !roles.includes(wanted)) {
  console.error(`usage: npm run ops:grant -- <email> <${roles.join('|')}>`);
  process.exit(2);
}
if (!process.env['FIREBASE_PROJECT_ID']) process.env['FIREBASE_AUTH_EMULATOR_HOST'] ??= '127.0.0.1:9099';
const projectId = process.env['FIREBASE_PROJECT_ID'] ?? 'demo-esim';

const accounts = firebaseAccounts(projectId);
const account = await accounts.find({ email });
if (!account) {
  console.error(`No account with the e-mail ${email} in ${projectId}: sign up on the site first.`);
  process.exit(1);
}
const role = wanted === 'none' ? undefined : (wanted as OpsRole);
await accounts.setRole(account.uid, role);
console.log(`${email} (${account.uid}) in ${projectId}: ${role ? `role ${role}` : 'no role'}; signed out everywhere, so it applies now.`);

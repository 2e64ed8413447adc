// The dev command's dashboard user: an owner of the demo tenant with a password made here once and kept, with its
// email, in .data/demo-user.json (like the demo keys), so `npm run dev` can print a sign-in that works.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config.js';
import type { Pool } from '../../src/platform/db.js';
import { deleteOtherTenantsUsers, userByEmail } from '../../src/users/repository.js';
import { createUser, newPasswordLink, setPasswordWithLink } from '../../src/users/service.js';

export const DEMO_USER_EMAIL = 'demo@loja-demo.ao';

export interface DemoUser {
  email: string;
  password: string;
}

const tokenOf = (link: string) => new URL(link).hash.replace(/^#token=/, '');

/** The demo owner of `tenantId`, created (or given a fresh password) when the saved one does not sign in here. */
export async function seedDemoUser(pool: Pool, dataDir: string, tenantId: string, baseUrl: string): Promise<DemoUser> {
  const file = path.join(dataDir, 'demo-user.json');
  const saved = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as DemoUser) : null;
  // Left from an older demo tenant: gone, so that the demo sign-in opens this tenant's dashboard without a choice.
  await deleteOtherTenantsUsers(pool, DEMO_USER_EMAIL, tenantId);
  const existing = await userByEmail(pool, tenantId, DEMO_USER_EMAIL);
  if (saved && existing?.password_hash) return saved;

  const settings = loadConfig().dashboard;
  const password = randomBytes(12).toString('base64url');
  let link: string;
  if (existing) {
    link = (await newPasswordLink(pool, settings, baseUrl, tenantId, existing.id))!.set_password_url;
  } else {
    link = (await createUser(pool, settings, baseUrl, { tenantId, email: DEMO_USER_EMAIL, role: 'owner' }))
      .set_password_url;
  }
  await setPasswordWithLink(pool, tokenOf(link), password);
  const user = { email: DEMO_USER_EMAIL, password };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(user, null, 2), { mode: 0o600 });
  return user;
}

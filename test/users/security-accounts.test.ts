// Dashboard accounts and passwords under attack, on the real stack (issue #27): the sign-in lockout holds however many
// attempts arrive at once (each is counted before its password is checked), set-password and sign-in cannot be used
// to burn the CPU (a bogus link costs no hash; hashes are rationed, 503 password_check_busy beyond the bound), and
// accounts are per tenant (an email may be a user of several teams; nothing answers about another tenant's users).
import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import type { CreatedTenant } from '../../src/tenants/service.js';
import { hashPassword, hashStats, setHashLimits } from '../../src/users/passwords.js';
import type { Role } from '../../src/users/roles.js';
import { MAX_FAILURES_PER_ADDRESS, MAX_FAILURES_PER_EMAIL, createUser } from '../../src/users/service.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let tenant: CreatedTenant;
const PASSWORD = 'correct horse battery staple';
const HASH_LIMITS = { concurrency: 2, queue: 100 };

beforeAll(async () => {
  // A queue long enough for every burst below: these tests count password checks, not refusals (but the last describe).
  stack = await startStack({ dashboard: { ...loadConfig({}).dashboard, passwordHashQueue: HASH_LIMITS.queue } });
  tenant = await stack.tenant();
});
afterAll(() => stack?.close());
afterEach(() => setHashLimits(HASH_LIMITS));

const tokenOf = (link: string) => new URL(link).hash.replace(/^#token=/, '');
const email = (role: string) => `${role}-${randomUUID().slice(0, 8)}@loja.test`;
/** A client address of the test's own: the counts live in the run's shared Postgres. */
const someAddress = () => `198.51.${randomInt(0, 255)}.${randomInt(1, 255)}`;

async function invite(tenantId: string, address: string, role: Role = 'owner'): Promise<string> {
  return (await createUser(stack.pool, stack.config.dashboard, stack.url, { tenantId, email: address, role }))
    .set_password_url;
}

async function setPassword(link: string, password = PASSWORD) {
  return stack.request('POST', '/dashboard/api/password', {
    body: { token: tokenOf(link), password },
    headers: { origin: stack.url },
  });
}

/** A user of `tenantId` with `password` set through its link. */
async function userWith(
  tenantId: string,
  address = email('owner'),
  password = PASSWORD,
  role: Role = 'owner',
): Promise<string> {
  const set = await setPassword(await invite(tenantId, address, role), password);
  expect(set.status, JSON.stringify(set.body)).toBe(204);
  return address;
}

/** A sign-in as the dashboard's page sends it, from `from` (Fastify's inject gives the real app that client address). */
async function signInFrom(from: string, body: { email: string; password: string; tenant_id?: string }) {
  const res = await stack.app.inject({
    method: 'POST',
    url: '/dashboard/api/session',
    remoteAddress: from,
    headers: { origin: stack.url },
    payload: body,
  });
  return { status: res.statusCode, headers: res.headers, body: res.json() };
}

const countBy = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

describe('the sign-in lockout holds under concurrency', () => {
  it('31 parallel wrong passwords for one email: exactly 5 are checked, the other 26 are locked; then the right one is locked too', async () => {
    const address = await userWith(tenant.tenant_id);
    const before = hashStats().computed;
    // Each from an address of its own, so that only the email's limit applies.
    const answers = await Promise.all(
      Array.from({ length: 31 }, (_, i) =>
        signInFrom(someAddress(), { email: address, password: `wrong password ${i}` }),
      ),
    );
    const checked = hashStats().computed - before;
    expect(countBy(answers.map((a) => a.status))).toEqual({
      401: MAX_FAILURES_PER_EMAIL,
      429: 31 - MAX_FAILURES_PER_EMAIL,
    });
    expect(checked).toBe(MAX_FAILURES_PER_EMAIL);
    for (const locked of answers.filter((a) => a.status === 429)) {
      expect(locked.body).toMatchObject({ error: 'sign_in_locked' });
      expect(locked.headers['retry-after']).toBe('900');
    }
    const right = await signInFrom(someAddress(), { email: address, password: PASSWORD });
    expect(right.status).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();
  }, 120_000);

  it('30 parallel guesses and the right password together: at most 5 passwords are checked, and the right one wins only among them', async () => {
    const address = await userWith(tenant.tenant_id);
    const before = hashStats().computed;
    const guesses = Array.from({ length: 30 }, (_, i) => ({ email: address, password: `guess number ${i}` }));
    guesses.splice(randomInt(0, 31), 0, { email: address, password: PASSWORD });
    const answers = await Promise.all(guesses.map((body) => signInFrom(someAddress(), body)));
    const checked = hashStats().computed - before;
    const statuses = countBy(answers.map((a) => a.status));
    expect(checked).toBeLessThanOrEqual(MAX_FAILURES_PER_EMAIL);
    expect((statuses[401] ?? 0) + (statuses[201] ?? 0)).toBe(checked);
    expect(statuses[429]).toBeGreaterThanOrEqual(31 - MAX_FAILURES_PER_EMAIL);
    expect(statuses[201] ?? 0).toBeLessThanOrEqual(1);
  }, 120_000);

  it('30 parallel failures from one client address (30 emails): at most 20 passwords are checked, then the address is locked', async () => {
    const from = someAddress();
    const address = await userWith(tenant.tenant_id);
    const before = hashStats().computed;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signInFrom(from, { email: `nobody-${i}-${randomUUID().slice(0, 8)}@loja.test`, password: 'wrong password' }),
      ),
    );
    expect(hashStats().computed - before).toBe(MAX_FAILURES_PER_ADDRESS);
    expect(countBy(answers.map((a) => a.status))).toEqual({
      401: MAX_FAILURES_PER_ADDRESS,
      429: 30 - MAX_FAILURES_PER_ADDRESS,
    });
    const right = await signInFrom(from, { email: address, password: PASSWORD });
    expect(right.status).toBe(429);
    expect(right.body.detail).toContain('from this address');
    // The email itself was not locked: from elsewhere it signs in.
    expect((await signInFrom(someAddress(), { email: address, password: PASSWORD })).status).toBe(201);
  }, 120_000);

  it('a right password forgets its own attempt: a user signing in often is never locked by it', async () => {
    const from = someAddress();
    const address = await userWith(tenant.tenant_id);
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL + 1; i++)
      expect((await signInFrom(from, { email: address, password: PASSWORD })).status).toBe(201);
    const { rows } = await stack.pool.query('SELECT count(*)::int AS n FROM sign_in_failures WHERE subject = ANY($1)', [
      [`email:${address}`, `ip:${from}`],
    ]);
    expect(rows[0].n).toBe(0);
  }, 120_000);
});

describe('set-password and sign-in cannot burn the CPU', () => {
  it('a bogus or spent set-password token is refused before any hash', async () => {
    const link = await invite(tenant.tenant_id, email('viewer'), 'viewer');
    expect((await setPassword(link)).status).toBe(204);
    const before = hashStats().computed;
    const started = Date.now();
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, () => setPassword(`https://x/#token=${randomUUID()}`, 'a long enough password')),
      setPassword(link, 'another long password'), // spent
    ]);
    for (const res of answers) stack.expectProblem(res, 422, 'password_link_invalid');
    expect(hashStats().computed - before).toBe(0);
    // 21 scrypts of 128 MiB would take seconds here; lookups take milliseconds.
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('beyond the bound of concurrent hashes, sign-in and set-password answer 503 with Retry-After, counting and changing nothing', async () => {
    const address = await userWith(tenant.tenant_id);
    const link = await invite(tenant.tenant_id, email('developer'), 'developer');
    const from = someAddress();
    setHashLimits({ concurrency: 1, queue: 0 });
    const refusedBefore = hashStats().refused;
    const blocker = hashPassword('a password hashed by the test itself'); // takes the only slot
    const signIn = await signInFrom(from, { email: address, password: PASSWORD });
    const set = await setPassword(link);
    await blocker;

    expect(signIn.status, JSON.stringify(signIn.body)).toBe(503);
    expect(signIn.body).toMatchObject({ error: 'password_check_busy', status: 503 });
    expect(signIn.headers['retry-after']).toBe('2');
    expect(signIn.headers['set-cookie']).toBeUndefined();
    stack.expectProblem(set, 503, 'password_check_busy');
    expect(set.headers.get('retry-after')).toBe('2');
    expect(hashStats().refused - refusedBefore).toBe(2);
    // Nothing was counted against the email or the address, and the link still works.
    const { rows } = await stack.pool.query('SELECT count(*)::int AS n FROM sign_in_failures WHERE subject = ANY($1)', [
      [`email:${address}`, `ip:${from}`],
    ]);
    expect(rows[0].n).toBe(0);
    expect((await setPassword(link)).status).toBe(204);
    expect((await signInFrom(from, { email: address, password: PASSWORD })).status).toBe(201);
  });

  it('within the bound a sign-in waits its turn in the queue instead of being refused', async () => {
    const address = await userWith(tenant.tenant_id);
    setHashLimits({ concurrency: 1, queue: 1 });
    const blocker = hashPassword('a password hashed by the test itself');
    const queued = signInFrom(someAddress(), { email: address, password: PASSWORD });
    while (hashStats().queued === 0) await new Promise((resolve) => setTimeout(resolve, 5)); // the sign-in waits for the slot
    await blocker;
    expect((await queued).status).toBe(201);
  });
});

describe('dashboard accounts are per tenant', () => {
  /** A browser signed in as an owner of `tenantId`. */
  async function ownerSession(tenantId: string) {
    const address = await userWith(tenantId);
    const res = await signInFrom(someAddress(), { email: address, password: PASSWORD });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const cookie = String(res.headers['set-cookie']).split(';')[0];
    const headers = { cookie, origin: stack.url, 'sec-fetch-site': 'same-origin', 'x-csrf-token': res.body.csrf_token };
    return (method: string, path: string, body?: unknown) => stack.request(method, path, { body, headers });
  }

  it("inviting another tenant's user's email (in any case) creates an account of this tenant, telling nothing of the other; twice is 409", async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    const address = await userWith(a.tenant_id, email('ana'));
    const asOwnerOfB = await ownerSession(b.tenant_id);
    const invited = await asOwnerOfB('POST', '/v1/users', { email: address.toUpperCase(), role: 'viewer' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body).toMatchObject({ email: address, role: 'viewer', status: 'invited', last_sign_in_at: null });
    expect(JSON.stringify(invited.body)).not.toContain(a.tenant_id);
    const again = await asOwnerOfB('POST', '/v1/users', { email: address, role: 'owner' });
    stack.expectProblem(again, 409, 'email_taken');
    expect(again.body.detail).toBe(`${address} already has a dashboard account in this team.`);
    // B's list shows B's users only; A's account is untouched (its owner still signs in to A alone).
    const listed = await asOwnerOfB('GET', '/v1/users');
    expect(listed.body.data.filter((u: { email: string }) => u.email === address)).toEqual([
      expect.objectContaining({ id: invited.body.id, status: 'invited' }),
    ]);
    const signedIn = await signInFrom(someAddress(), { email: address, password: PASSWORD });
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.tenant.id).toBe(a.tenant_id);
  });

  it('an address invited by one tenant and never used does not stop another tenant from inviting it (no squatting)', async () => {
    const squatter = await stack.tenant();
    const shop = await stack.tenant();
    const address = email('squatted');
    await invite(squatter.tenant_id, address);
    await userWith(shop.tenant_id, address);
    const res = await signInFrom(someAddress(), { email: address, password: PASSWORD });
    expect(res.status).toBe(201);
    expect(res.body.tenant.id).toBe(shop.tenant_id);
  });

  it('one email in two teams with one password: sign-in lists the two teams (no session yet), then opens the one chosen', async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    const other = await stack.tenant();
    const address = await userWith(a.tenant_id, email('both'));
    await userWith(b.tenant_id, address, PASSWORD, 'viewer');
    const from = someAddress();

    const choice = await signInFrom(from, { email: address, password: PASSWORD });
    expect(choice.status).toBe(200);
    expect(choice.headers['set-cookie']).toBeUndefined();
    expect(choice.body).toEqual({
      tenants: expect.arrayContaining([
        { id: a.tenant_id, name: expect.any(String) },
        { id: b.tenant_id, name: expect.any(String) },
      ]),
    });
    expect(choice.body.tenants).toHaveLength(2);

    const chosen = await signInFrom(from, { email: address, password: PASSWORD, tenant_id: b.tenant_id });
    expect(chosen.status).toBe(201);
    expect(chosen.body).toMatchObject({ tenant: { id: b.tenant_id }, user: { email: address, role: 'viewer' } });
    // A tenant without an account of this email is a wrong password like any other; so is a malformed one a 422.
    const elsewhere = await signInFrom(from, { email: address, password: PASSWORD, tenant_id: other.tenant_id });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body).toMatchObject({ error: 'invalid_credentials', detail: 'Wrong email or password.' });
    expect((await signInFrom(from, { email: address, password: PASSWORD, tenant_id: 'nope' })).status).toBe(422);
  });

  it("each account has its own password: one team's password opens that team only, naming no other; a wrong one costs one hash", async () => {
    const a = await stack.tenant();
    const b = await stack.tenant();
    const address = await userWith(a.tenant_id, email('two'), 'the password for team a');
    await userWith(b.tenant_id, address, 'the password for team b');
    const toA = await signInFrom(someAddress(), { email: address, password: 'the password for team a' });
    expect(toA.status).toBe(201);
    expect(toA.body.tenant.id).toBe(a.tenant_id);
    expect(JSON.stringify(toA.body)).not.toContain(b.tenant_id);
    const toB = await signInFrom(someAddress(), { email: address, password: 'the password for team b' });
    expect(toB.body.tenant.id).toBe(b.tenant_id);

    // Both accounts are checked with one hash (their salt is shared), as long as an unknown email's check.
    const before = hashStats().computed;
    const wrong = await signInFrom(someAddress(), { email: address, password: 'neither of the two' });
    expect(wrong.body).toMatchObject({ error: 'invalid_credentials', detail: 'Wrong email or password.' });
    expect(hashStats().computed - before).toBe(1);
  });
});

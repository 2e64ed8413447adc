// The admin command line, run as a real subprocess against the run's database, and its keys and
// couriers checked through the real API.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import type { Simulator } from '../../simulator/server.js';
import { createDeliveryFor, merchantWith, simCompany, startSimulator, waitForStatus } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { deliveryWith, until } from '../helpers/test-mode.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function admin(...args: string[]): Promise<Run> {
  return adminWithInput('', ...args);
}

/** Runs the CLI with `input` on its standard input. */
function adminWithInput(input: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT_DIR, 'src', 'cli', 'index.ts'), ...args],
      {
        cwd: ROOT_DIR,
        env: { ...process.env, DATABASE_URL: inject('databaseUrl'), TEMPORAL_ADDRESS: inject('temporalAddress') },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

async function adminJson(...args: string[]): Promise<any> {
  const run = await admin(...args, '--json');
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

const slug = () => `c-${randomUUID().slice(0, 8)}`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

describe('admin CLI: tenants and keys', () => {
  it('tenant create --json prints the tenant and its live and test pairs of keys, which work against the API', async () => {
    const created = await adminJson(
      'tenant',
      'create',
      '--name',
      'Loja CLI',
      '--allowed-origin',
      'https://shop.cli.test',
    );
    expect(Object.keys(created).sort()).toEqual([
      'publishable_key',
      'publishable_key_id',
      'secret_key',
      'secret_key_id',
      'tenant_id',
      'test_publishable_key',
      'test_publishable_key_id',
      'test_secret_key',
      'test_secret_key_id',
    ]);
    expect(created.secret_key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(created.publishable_key).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect(created.test_secret_key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(created.test_publishable_key).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    expect((await stack.request('GET', '/v1/couriers', { key: created.test_secret_key })).status).toBe(200);
    const testWidget = await stack.request('GET', '/v1/widget/couriers', {
      key: created.test_publishable_key,
      headers: { origin: 'https://shop.cli.test' },
    });
    expect(testWidget.status).toBe(200);

    expect((await stack.request('GET', '/v1/couriers', { key: created.secret_key })).status).toBe(200);
    const widget = await stack.request('GET', '/v1/widget/couriers', {
      key: created.publishable_key,
      headers: { origin: 'https://shop.cli.test' },
    });
    expect(widget.status).toBe(200);
    const otherOrigin = await stack.request('GET', '/v1/widget/couriers', {
      key: created.publishable_key,
      headers: { origin: 'https://other.test' },
    });
    expect(otherOrigin.status).toBe(401);
  });

  it('tenant list shows created tenants', async () => {
    const created = await adminJson('tenant', 'create', '--name', 'Listed tenant');
    const listed = await adminJson('tenant', 'list');
    expect(listed.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ tenant_id: created.tenant_id, name: 'Listed tenant' })]),
    );
    const human = await admin('tenant', 'list');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(created.tenant_id);
  });

  it('key create issues a working key; key revoke by id, or by the key itself on stdin, makes it 401', async () => {
    const t = await adminJson('tenant', 'create', '--name', 'Key tenant');
    const second = await adminJson('key', 'create', '--tenant', t.tenant_id, '--kind', 'secret');
    expect(second.key).toMatch(/^sk_live_/);
    expect((await stack.request('GET', '/v1/couriers', { key: second.key })).status).toBe(200);

    const byId = await adminJson('key', 'revoke', second.key_id);
    expect(byId).toEqual({ key_id: second.key_id, revoked: true });
    // The CLI is another process: the API's key cache hears of the revocation by NOTIFY, within moments.
    const afterId = await vi.waitFor(async () => {
      const res = await stack.request('GET', '/v1/couriers', { key: second.key });
      expect(res.status).toBe(401);
      return res;
    });
    expect(afterId.body.error).toBe('unauthorized');

    // The key itself on the command line (shell history, process lists) is refused, naming the id to pass instead.
    const onCommandLine = await admin('key', 'revoke', t.secret_key);
    expect(onCommandLine.code).toBe(2);
    expect(onCommandLine.stderr).toContain(`Pass the key's id (${t.secret_key_id}), not the key itself`);
    expect(onCommandLine.stderr).toContain('--stdin');
    expect(onCommandLine.stderr).not.toContain(t.secret_key);
    expect((await stack.request('GET', '/v1/couriers', { key: t.secret_key })).status).toBe(200);
    const notAKey = await admin('key', 'revoke', 'sk_live_not-a-real-key');
    expect(notAKey.code).toBe(2);
    expect(notAKey.stderr).toMatch(/is not a key id \(a UUID\)\. Nothing was revoked/);

    const byStdin = await adminWithInput(`${t.secret_key}\n`, 'key', 'revoke', '--stdin', '--json');
    expect(byStdin.stderr).toBe('');
    expect(byStdin.code).toBe(0);
    expect(JSON.parse(byStdin.stdout)).toEqual({ key_id: t.secret_key_id, revoked: true });
    await vi.waitFor(async () =>
      expect((await stack.request('GET', '/v1/couriers', { key: t.secret_key })).status).toBe(401),
    );
    const both = await adminWithInput(t.publishable_key, 'key', 'revoke', t.publishable_key_id, '--stdin');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either a key id or --stdin/);
    const empty = await adminWithInput('', 'key', 'revoke', '--stdin');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/no key on standard input/);

    const publishable = await adminJson(
      'key',
      'create',
      '--tenant',
      t.tenant_id,
      '--kind',
      'publishable',
      '--allowed-origin',
      'https://widget.cli.test',
    );
    const ok = await stack.request('GET', '/v1/widget/couriers', {
      key: publishable.key,
      headers: { origin: 'https://widget.cli.test' },
    });
    expect(ok.status).toBe(200);
  });

  it('key create --mode test issues a test key (live is the default); --mode takes only live or test', async () => {
    const t = await adminJson('tenant', 'create', '--name', 'Mode tenant');
    const live = await adminJson('key', 'create', '--tenant', t.tenant_id, '--kind', 'secret');
    expect(live).toMatchObject({
      kind: 'secret',
      mode: 'live',
      livemode: true,
      key: expect.stringMatching(/^sk_live_/),
    });
    const test = await adminJson('key', 'create', '--tenant', t.tenant_id, '--kind', 'secret', '--mode', 'test');
    expect(test).toMatchObject({
      kind: 'secret',
      mode: 'test',
      livemode: false,
      key: expect.stringMatching(/^sk_test_[0-9A-Za-z]{32}$/),
    });
    const testPublishable = await adminJson(
      'key',
      'create',
      '--tenant',
      t.tenant_id,
      '--kind',
      'publishable',
      '--mode',
      'test',
      '--allowed-origin',
      'https://t.test',
    );
    expect(testPublishable.key).toMatch(/^pk_test_/);
    // The test key sees the built-in test couriers, the live key the tenant's linked ones (none here).
    const couriers = await stack.request('GET', '/v1/couriers', { key: test.key });
    expect(couriers.body.data.map((c: { slug: string }) => c.slug)).toContain('test-auto');
    expect((await stack.request('GET', '/v1/couriers', { key: live.key })).body.data).toEqual([]);
    const bad = await admin('key', 'create', '--tenant', t.tenant_id, '--kind', 'secret', '--mode', 'sandbox');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are live, test/);
    // The test couriers are nobody's to link.
    const link = await admin('courier', 'link', '--tenant', t.tenant_id, '--courier', 'test-auto');
    expect(link.code).toBe(2);
    expect(link.stderr).toMatch(/test-auto is a simulated test courier/);
  });
});

describe('admin CLI: what the tracking page shows of the shop', () => {
  it('tenant settings sets the display name and help contact; an empty value clears one; a bad one is a usage error', async () => {
    const t = await adminJson('tenant', 'create', '--name', 'Loja CLI settings');
    const set = await adminJson(
      'tenant',
      'settings',
      '--tenant',
      t.tenant_id,
      '--display-name',
      'Loja Kianda',
      '--help-email',
      'ajuda@loja-kianda.ao',
      '--help-phone',
      '+244 923 000 111',
      '--help-url',
      'https://loja-kianda.ao/ajuda',
    );
    expect(set).toEqual({
      tenant_id: t.tenant_id,
      display_name: 'Loja Kianda',
      help_email: 'ajuda@loja-kianda.ao',
      help_phone: '+244 923 000 111',
      help_url: 'https://loja-kianda.ao/ajuda',
    });
    const cleared = await adminJson(
      'tenant',
      'settings',
      '--tenant',
      t.tenant_id,
      '--help-url',
      '',
      '--display-name',
      '',
    );
    expect(cleared).toMatchObject({ display_name: null, help_email: 'ajuda@loja-kianda.ao', help_url: null });
    const human = await admin('tenant', 'settings', '--tenant', t.tenant_id);
    expect(human.stdout).toContain("shop name:  Loja CLI settings (the tenant's name)");
    for (const [option, value] of [
      ['--help-email', 'not-an-email'],
      ['--help-url', 'javascript:alert(1)'],
      ['--help-phone', 'call me'],
    ]) {
      const bad = await admin('tenant', 'settings', '--tenant', t.tenant_id, option, value);
      expect(bad.code, option).toBe(2);
      expect(bad.stderr).toMatch(/^error: ".*" is not an? /);
    }
    const { rows } = await stack.pool.query('SELECT help_email FROM tenants WHERE id = $1', [t.tenant_id]);
    expect(rows[0].help_email).toBe('ajuda@loja-kianda.ao');
  });
});

describe('admin CLI: couriers', () => {
  it('courier create --json prints {courier_id, slug, fleet_secret}; link --courier and --all list them on GET /v1/couriers', async () => {
    const t = await adminJson('tenant', 'create', '--name', 'Courier tenant');
    const a = slug();
    const b = slug();
    const first = await adminJson(
      'courier',
      'create',
      '--name',
      'CLI Express',
      '--slug',
      a,
      '--adapter',
      'rate_card',
      '--base-fee-aoa',
      '120000',
      '--base-eta-minutes',
      '45',
      '--service-zones',
      'Luanda, Bengo',
      '--max-weight-grams',
      '15000',
      '--parcel-types',
      'document,box',
      '--require-delivery-pin',
      '--bank-transfer-enabled',
      '--bank-name',
      'Banco BAI',
      '--bank-account-holder',
      'CLI Express Lda',
      '--bank-iban',
      'AO06004000000123456789012',
    );
    expect(Object.keys(first).sort()).toEqual(['courier_id', 'fleet_secret', 'slug']);
    expect(first.slug).toBe(a);
    expect(first.fleet_secret).toMatch(/^whsec_/);
    await adminJson(
      'courier',
      'create',
      '--name',
      'CLI Http',
      '--slug',
      b,
      '--adapter',
      'http',
      '--endpoint',
      'http://127.0.0.1:9/courier',
    );

    expect(await adminJson('courier', 'link', '--tenant', t.tenant_id, '--courier', a)).toEqual({
      tenant_id: t.tenant_id,
      linked: [a],
    });
    let listed = await stack.request('GET', '/v1/couriers', { key: t.secret_key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { slug: string }) => c.slug)).toEqual([a]);
    expect(listed.body.data[0]).toMatchObject({
      id: first.courier_id,
      name: 'CLI Express',
      base_fee_aoa: 120000,
      base_eta_minutes: 45,
      service_zones: ['Luanda', 'Bengo'],
      capabilities: {
        bank_transfer_enabled: true,
        bank_name: 'Banco BAI',
        bank_account_holder: 'CLI Express Lda',
        bank_iban: 'AO06004000000123456789012',
        max_weight_grams: 15000,
        parcel_types: ['document', 'box'],
        require_delivery_pin: true,
      },
    });

    const all = await adminJson('courier', 'link', '--tenant', t.tenant_id, '--all');
    expect(all.linked).toContain(b);
    expect(all.linked).not.toContain(a); // already linked
    listed = await stack.request('GET', '/v1/couriers', { key: t.secret_key });
    expect(listed.body.data.map((c: { slug: string }) => c.slug)).toEqual(expect.arrayContaining([a, b]));
  });
});

describe('admin CLI: bad arguments', () => {
  let tenantId: string;
  let takenSlug: string;
  beforeAll(async () => {
    tenantId = (await adminJson('tenant', 'create', '--name', 'Bad args tenant')).tenant_id;
    takenSlug = slug();
    await adminJson('courier', 'create', '--name', 'Taken', '--slug', takenSlug, '--adapter', 'rate_card');
  });

  const cases: [string, () => string[], RegExp][] = [
    ['an unknown command', () => ['tenant', 'delete'], /unknown command 'delete'/],
    ['an unknown top-level command', () => ['frobnicate'], /unknown command 'frobnicate'/],
    ['an unknown option', () => ['tenant', 'list', '--colour'], /unknown option '--colour'/],
    ['a missing required option', () => ['tenant', 'create'], /required option '--name <name>' not specified/],
    [
      'a missing --kind',
      () => ['key', 'create', '--tenant', tenantId],
      /required option '--kind <kind>' not specified/,
    ],
    [
      'a bad --kind value',
      () => ['key', 'create', '--tenant', tenantId, '--kind', 'admin'],
      /Allowed choices are secret, publishable/,
    ],
    [
      'a bad --adapter value',
      () => ['courier', 'create', '--name', 'X', '--slug', slug(), '--adapter', 'carrier-pigeon'],
      /Allowed choices are rate_card, http/,
    ],
    [
      'a non-numeric --base-fee-aoa',
      () => [
        'courier',
        'create',
        '--name',
        'X',
        '--slug',
        slug(),
        '--adapter',
        'rate_card',
        '--base-fee-aoa',
        '12.5kz',
      ],
      /--base-fee-aoa.*not a non-negative whole number/,
    ],
    ['a bad UUID', () => ['key', 'create', '--tenant', 'not-a-uuid', '--kind', 'secret'], /"not-a-uuid" is not a UUID/],
    ['an unknown tenant', () => ['courier', 'link', '--tenant', randomUUID(), '--all'], /No tenant /],
    [
      'both --courier and --all',
      () => ['courier', 'link', '--tenant', tenantId, '--all', '--courier', takenSlug],
      /exactly one of --courier <slug> or --all/,
    ],
    [
      'an unknown courier slug',
      () => ['courier', 'link', '--tenant', tenantId, '--courier', 'no-such-courier'],
      /No courier with slug "no-such-courier"/,
    ],
    [
      'a duplicate slug',
      () => ['courier', 'create', '--name', 'Again', '--slug', takenSlug, '--adapter', 'rate_card'],
      /slug ".*" exists already/,
    ],
    [
      'an http courier without --endpoint',
      () => ['courier', 'create', '--name', 'X', '--slug', slug(), '--adapter', 'http'],
      /--endpoint is required/,
    ],
    [
      'an invalid origin',
      () => ['tenant', 'create', '--name', 'X', '--allowed-origin', 'https://shop.test/path'],
      /is not an origin/,
    ],
    ['an unknown key id to revoke', () => ['key', 'revoke', randomUUID()], /No such key/],
    [
      'an unknown key itself on the command line',
      () => ['key', 'revoke', 'sk_live_' + '0'.repeat(32)],
      /is not a key id \(a UUID\)/,
    ],
    ['a missing argument', () => ['key', 'revoke'], /Give the key id to revoke/],
  ];

  it.each(cases)('%s: one line on stderr, exit code 2, no stack trace', async (_name, args, message) => {
    const run = await admin(...args(), '--json');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: /);
    expect(lines[0]).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at |Error:|node_modules/);
  });

  it('refuses a duplicate slug without creating a second courier', async () => {
    const { rows } = await stack.pool.query('SELECT count(*)::int AS n FROM courier_companies WHERE slug = $1', [
      takenSlug,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe('admin CLI: operators (stalled deliveries, recover, courier list)', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim?.close());

  it("courier list shows ids and slugs, every company or a tenant's (--tenant); link and rotate-secret take a slug or an id", async () => {
    const linked = simCompany();
    const m = await merchantWith(stack, sim, [linked]);
    const other = await adminJson(
      'courier',
      'create',
      '--name',
      'Not linked',
      '--slug',
      slug(),
      '--adapter',
      'rate_card',
    );

    const mine = await adminJson('courier', 'list', '--tenant', m.tenant.tenant_id);
    expect(mine.data).toEqual([
      expect.objectContaining({
        courier_id: m.couriers[linked.slug],
        slug: linked.slug,
        adapter: 'http',
        active: true,
      }),
    ]);
    const human = await admin('courier', 'list', '--tenant', m.tenant.tenant_id);
    expect(human.code).toBe(0);
    expect(human.stdout.trim()).toBe(`${m.couriers[linked.slug]}  ${linked.slug}  http  ${linked.name}`);
    const every = await adminJson('courier', 'list');
    expect(every.data.map((c: { slug: string }) => c.slug)).toEqual(expect.arrayContaining([linked.slug, other.slug]));

    // By id where a slug is taken.
    expect(await adminJson('courier', 'link', '--tenant', m.tenant.tenant_id, '--courier', other.courier_id)).toEqual({
      tenant_id: m.tenant.tenant_id,
      linked: [other.slug],
    });
    expect((await adminJson('courier', 'rotate-secret', '--courier', other.courier_id)).slug).toBe(other.slug);
    const unknown = await admin('courier', 'list', '--tenant', randomUUID());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: No tenant /);
  });

  it('delivery stalled shows reference, mode, reason and age; recover waits for the answer: an ignored action exits 3 with the reason, a done one 0', async () => {
    const rejecting = simCompany({ reject_bookings: true });
    const accepting = simCompany({ booking_status: 'accepted' });
    const m = await merchantWith(stack, sim, [rejecting, accepting]);
    const unlinked = await adminJson(
      'courier',
      'create',
      '--name',
      'Elsewhere',
      '--slug',
      slug(),
      '--adapter',
      'rate_card',
    );
    const d = await createDeliveryFor(stack, m, {}, rejecting.slug);
    await waitForStatus(stack, m.tenant.secret_key, d.id, 'stalled');

    // Temporal's visibility store catches up within a moment.
    let listed: any;
    for (let i = 0; i < 40; i++) {
      listed = await adminJson('delivery', 'stalled', '--tenant', m.tenant.tenant_id);
      if (listed.data.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(listed.data).toEqual([
      expect.objectContaining({
        delivery_id: d.id,
        reference: d.reference,
        livemode: true,
        reason: 'courier_rejected',
        courier_slug: rejecting.slug,
        age_seconds: expect.any(Number),
      }),
    ]);
    expect(listed.data[0].age_seconds).toBeGreaterThanOrEqual(0);
    const table = await admin('delivery', 'stalled', '--tenant', m.tenant.tenant_id);
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header).toMatch(/^REFERENCE\s+MODE\s+REASON\s+AGE\s+COURIER\s+DELIVERY$/);
    expect(row).toMatch(
      new RegExp(`^${d.reference}\\s+live\\s+courier_rejected\\s+\\d+ (s|min)\\s+${rejecting.slug}\\s+${d.id}$`),
    );

    // A company the tenant has no link to: the workflow ignores the redispatch, and the command says so.
    const ignored = await admin('delivery', 'recover', d.id, '--action', 'redispatch', '--company', unlinked.slug);
    expect(ignored.code).toBe(3);
    expect(ignored.stdout).toBe('');
    expect(ignored.stderr).toMatch(/^error: The workflow ignored redispatch: unknown_company\. Nothing changed/);
    expect((await stack.request('GET', `/v1/deliveries/${d.id}`, { key: m.tenant.secret_key })).body.status).toBe(
      'stalled',
    );

    // A linked one, by slug: redispatched, and the courier takes it.
    const done = await adminJson(
      'delivery',
      'recover',
      d.id,
      '--action',
      'redispatch',
      '--company',
      accepting.slug,
      '--note',
      'first courier has no drivers',
    );
    expect(done).toMatchObject({
      delivery_id: d.id,
      action: 'redispatch',
      company_id: m.couriers[accepting.slug],
      event_type: 'delivery.redispatched',
    });
    await waitForStatus(stack, m.tenant.secret_key, d.id, 'assigned');

    // Not stalled any more: refused before anything is signalled.
    const again = await admin('delivery', 'recover', d.id, '--action', 'resume');
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is assigned, not stalled/);
    const noSuchCompany = await admin(
      'delivery',
      'recover',
      d.id,
      '--action',
      'redispatch',
      '--company',
      'no-such-courier',
    );
    expect(noSuchCompany.code).toBe(2);
    expect(noSuchCompany.stderr).toMatch(/No courier with slug "no-such-courier"/);
  });

  it('delivery stalled --mode live|test lists one mode only (search attribute DeliveryLivemode); without it both, each with its mode', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ reject_bookings: true })]);
    const live = await createDeliveryFor(stack, m);
    await waitForStatus(stack, m.tenant.secret_key, live.id, 'stalled');
    const testKey = m.tenant.test_secret_key;
    const test = await deliveryWith(stack, testKey, 'test-manual');
    await until(stack, testKey, test.id, (d) => d.status === 'assigned');
    const stalled = await stack.request('POST', `/v1/test_helpers/deliveries/${test.id}/stall`, { key: testKey });
    expect(stalled.status, JSON.stringify(stalled.body)).toBe(200);

    const tenant = ['--tenant', m.tenant.tenant_id];
    const modes = async (...args: string[]) =>
      (
        (await adminJson('delivery', 'stalled', ...tenant, ...args)).data as {
          delivery_id: string;
          livemode: boolean;
        }[]
      )
        .map((d) => `${d.delivery_id} ${d.livemode ? 'live' : 'test'}`)
        .sort();
    await expect
      .poll(() => modes(), { timeout: 15_000, interval: 300 })
      .toEqual([`${live.id} live`, `${test.id} test`].sort());
    expect(await modes('--mode', 'live')).toEqual([`${live.id} live`]);
    const onlyTest = await adminJson('delivery', 'stalled', ...tenant, '--mode', 'test');
    expect(onlyTest.query).toBe(
      `DeliveryStatus = "stalled" AND TenantId = "${m.tenant.tenant_id}" AND DeliveryLivemode = false`,
    );
    expect(onlyTest.data).toEqual([
      expect.objectContaining({
        delivery_id: test.id,
        livemode: false,
        reason: 'state_timeout',
        courier_slug: 'test-manual',
      }),
    ]);
    const table = await admin('delivery', 'stalled', ...tenant, '--mode', 'test');
    expect(table.stdout.trim().split('\n')[1]).toMatch(new RegExp(`^${test.reference}\\s+test\\s+state_timeout\\s`));

    const bad = await admin('delivery', 'stalled', '--mode', 'sandbox');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are live, test/);
  });
});

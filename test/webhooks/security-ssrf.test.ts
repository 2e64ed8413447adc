// SSRF protection of merchant webhooks (src/webhooks/url.ts): on by default; every special-use address in every
// spelling refused at registration (422, pointer /url) and again at send time after DNS resolution (a name
// re-pointed at the internal network after registration: DNS rebinding); loopback only with the explicit opt-in.
import { randomUUID } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../activities/webhooks/activities.js';
import { loadConfig } from '../../src/platform/config.js';
import { createEndpoint } from '../../src/webhooks/repository.js';
import {
  checkUrlSyntax,
  checkWebhookUrl,
  guardedLookup,
  isPrivateAddress,
  isRefusedAddress,
  type Resolver,
} from '../../src/webhooks/url.js';
import type { Simulator } from '../../simulator/server.js';
import { createDeliveryFor, merchantWith, simCompany, startSimulator, type Merchant } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';

/** Addresses no webhook may reach, one or more per special-use range and spelling. */
const REFUSED_ADDRESSES = [
  // IPv4 (RFC 6890)
  '0.0.0.0',
  '0.255.255.255',
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.1',
  '192.88.99.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6
  '::',
  '::1',
  '0:0:0:0:0:0:0:1',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1',
  'feff::1',
  'ff02::1',
  '100::1',
  '2001::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001:1ff::1',
  '2001:db8::1',
  '2002:c000:0204::1',
  '2002:0a00:0001::1',
  '3fff::1',
  '5f00::1',
  '64:ff9b:1::1',
  // IPv4 inside IPv6: mapped (dotted and hex), IPv4-compatible, SIIT, NAT64 with a private IPv4
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '0:0:0:0:0:ffff:7f00:0001',
  '::ffff:10.0.0.1',
  '::ffff:a9fe:a9fe',
  '::127.0.0.1',
  '::7f00:1',
  '::8.8.8.8',
  '::ffff:0:7f00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b::a00:1',
  '64:ff9b::169.254.169.254',
];
const PUBLIC_ADDRESSES = [
  '93.184.215.14',
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700::1111',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

/** URL spellings of internal hosts (WHATWG parsing turns each into a literal address or a localhost name). */
const REFUSED_URLS = [
  'http://127.0.0.1/x',
  'http://127.1/x',
  'http://2130706433/x',
  'http://0x7f000001/x',
  'http://0x7f.1/x',
  'http://0177.0.0.1/x',
  'http://127.000.000.001/x',
  'http://0/x',
  'http://localhost/x',
  'http://LOCALHOST./x',
  'https://api.localhost/x',
  'http://10.1.2.3/x',
  'http://192.168.0.10:8080/x',
  'http://172.16.5.4/x',
  'http://169.254.169.254/latest/meta-data',
  'http://100.64.1.1/x',
  'http://[::1]/x',
  'http://[::]/x',
  'http://[::ffff:127.0.0.1]/x',
  'http://[::ffff:7f00:1]/x',
  'http://[0:0:0:0:0:ffff:127.0.0.1]/x',
  'http://[::127.0.0.1]/x',
  'http://[fd00::1]/x',
  'http://[fe80::1]/x',
  'http://[fec0::1]/x',
  'http://[2002:7f00:1::1]/x',
  'http://[64:ff9b::10.0.0.1]/x',
  'http://[64:ff9b::7f00:1]/x',
  'http://[2001:db8::1]/x',
  'http://[ff02::1]/x',
  'http://user:pw@127.0.0.1/x',
];

/** A resolver for which every name is what `localhost` is on this machine (a real lookup): a rebound name. */
const toLoopback: Resolver = ((_host: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) =>
  dns.lookup('localhost', { ...options, family: 4 }, callback as never)) as unknown as Resolver;
/** A resolver answering with a public address (what a name said at registration, before rebinding). */
const toPublic: Resolver = ((_host: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) =>
  options.all
    ? callback(null, [{ address: '93.184.215.14', family: 4 }])
    : callback(null, '93.184.215.14', 4)) as unknown as Resolver;

describe('address and URL checks', () => {
  it.each(REFUSED_ADDRESSES)('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
    expect(isRefusedAddress(address, false)).toBe(true);
  });

  it.each(PUBLIC_ADDRESSES)('accepts the public address %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('the loopback opt-in lets loopback through, and nothing else', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])
      expect(isRefusedAddress(a, true), a).toBe(false);
    for (const a of REFUSED_ADDRESSES.filter(
      (x) => !/^(127\.|::1$|::ffff:(127\.|7f00:)|0:0:0:0:0:(0:0:1|ffff:7f00:))/.test(x),
    )) {
      expect(isRefusedAddress(a, true), a).toBe(true);
    }
  });

  it.each(REFUSED_URLS)('checkUrlSyntax refuses %s', (url) => {
    expect(checkUrlSyntax(url, false)?.code).toBe('private_address');
  });

  it('checkWebhookUrl: a name resolving to an internal address is refused; a public one accepted; loopback with the opt-in', async () => {
    expect(await checkWebhookUrl('https://hooks.shop.test/x', false, { resolve: toLoopback })).toMatchObject({
      code: 'private_address',
    });
    expect(await checkWebhookUrl('https://hooks.shop.test/x', false, { resolve: toPublic })).toBeNull();
    expect(await checkWebhookUrl('https://hooks.shop.test/x', true, { resolve: toLoopback })).toBeNull();
    expect(await checkWebhookUrl('http://localhost:8080/x', true)).toBeNull();
  });

  it('the send-time lookup drops internal answers and fails when none is left (real lookup of localhost)', async () => {
    const lookup = (allowLoopback: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        guardedLookup(allowLoopback)('localhost', { family: 4 }, (err, address) => resolve({ err, address })),
      );
    const refused = await lookup(false);
    expect(refused.err?.code).toBe('EPRIVATEADDRESS');
    expect((await lookup(true)).address).toBe('127.0.0.1');
  });

  it('is on by default: ALLOW_LOOPBACK_WEBHOOKS must be set explicitly, whatever NODE_ENV says', () => {
    expect(loadConfig({}).allowLoopbackWebhooks).toBe(false);
    expect(loadConfig({ NODE_ENV: 'development' }).allowLoopbackWebhooks).toBe(false);
    expect(loadConfig({ ALLOW_LOOPBACK_WEBHOOKS: 'true' }).allowLoopbackWebhooks).toBe(true);
    expect(loadConfig({ ALLOW_LOOPBACK_WEBHOOKS: 'false' }).allowLoopbackWebhooks).toBe(false);
  });
});

/** A webhook receiver on 127.0.0.1 counting what it gets. */
async function receiver() {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { port, hits: () => hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('on the real stack with the default configuration (loopback not allowed)', () => {
  let stack: Stack;
  let sim: Simulator;
  let m: Merchant;
  let recv: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    sim = await startSimulator();
    // The stack helper opts in to loopback for the other test files; this one keeps the production default.
    stack = await startStack({
      allowLoopbackWebhooks: loadConfig({}).allowLoopbackWebhooks,
      webhookScheduleMs: [0],
      webhookTimeoutMs: 2000,
    });
    m = await merchantWith(stack, sim, [simCompany()]);
    recv = await receiver();
  }, 120_000);
  afterAll(async () => {
    await recv?.close();
    await stack?.close();
    await sim?.close();
  });

  const post = (body: unknown) => stack.request('POST', '/v1/webhook_endpoints', { key: m.tenant.secret_key, body });

  it('registration refuses every internal URL form with 422 pointer /url; a public address is accepted, PATCH checked too', async () => {
    for (const url of [...REFUSED_URLS, `http://127.0.0.1:${recv.port}/hook`]) {
      const res = await post({ url });
      stack.expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors, url).toEqual([expect.objectContaining({ pointer: '/url', code: 'private_address' })]);
    }
    const ok = await post({ url: 'https://93.184.215.14/hooks' });
    expect(ok.status).toBe(201);
    const patched = await stack.request('PATCH', `/v1/webhook_endpoints/${ok.body.id}`, {
      key: m.tenant.secret_key,
      body: { url: 'http://[::ffff:169.254.169.254]/x' },
    });
    stack.expectProblem(patched, 422, 'validation_failed');
    expect(patched.body.errors).toEqual([expect.objectContaining({ pointer: '/url', code: 'private_address' })]);
    await stack.request('DELETE', `/v1/webhook_endpoints/${ok.body.id}`, { key: m.tenant.secret_key });
  });

  it('send time: a stored loopback URL (registered under an older setting) is never called by the worker', async () => {
    const before = recv.hits();
    const endpoint = await createEndpoint(
      stack.pool,
      { tenantId: m.tenant.tenant_id, livemode: true },
      { url: `http://127.0.0.1:${recv.port}/stored` },
    );
    try {
      const delivery = await createDeliveryFor(stack, m);
      const deadline = Date.now() + 20_000;
      let rows: Array<{ status: string; error: string | null }> = [];
      while (Date.now() < deadline && rows.length === 0) {
        ({ rows } = await stack.pool.query('SELECT status, error FROM webhook_attempts WHERE endpoint_id = $1', [
          endpoint.id,
        ]));
        if (rows.length === 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(rows.length, `no attempt logged for delivery ${delivery.id}`).toBeGreaterThan(0);
      expect(rows[0].status).toBe('failed');
      expect(rows[0].error).toMatch(/special-use address/);
      expect(recv.hits()).toBe(before);
    } finally {
      await stack.pool.query('UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1', [endpoint.id]);
    }
  });

  it('send time, DNS rebinding: a name that now resolves to loopback is not connected to; with the opt-in it is', async () => {
    const delivery = await createDeliveryFor(stack, m);
    const messageId = `msg_${randomUUID()}`;
    await stack.pool.query(
      `INSERT INTO webhook_messages (id, tenant_id, delivery_id, event_id, event_type, body) VALUES ($1, $2, $3, $4, 'delivery.created', '{}')`,
      [messageId, m.tenant.tenant_id, delivery.id, randomUUID()],
    );
    // Registered while the name pointed at a public address (the registration check accepts it) ...
    const url = `http://hooks.rebind.test:${recv.port}/rebound`;
    expect(await checkWebhookUrl(url, false, { resolve: toPublic })).toBeNull();
    const endpoint = await createEndpoint(stack.pool, { tenantId: m.tenant.tenant_id, livemode: true }, { url });
    const attempt = { endpointId: endpoint.id, messageId, attempt: 1, lastAttempt: false, trigger: 'event' as const };
    try {
      // ... then re-pointed at 127.0.0.1: the production worker refuses the connection.
      const before = recv.hits();
      const production = createWebhookActivities({
        config: { ...stack.config, allowLoopbackWebhooks: false },
        pool: stack.pool,
        resolve: toLoopback,
      });
      expect(await production.attemptWebhook(attempt)).toMatchObject({ outcome: 'retry', statusCode: null });
      const { rows } = await stack.pool.query(
        'SELECT status, error FROM webhook_attempts WHERE endpoint_id = $1 AND message_id = $2',
        [endpoint.id, messageId],
      );
      expect(rows).toEqual([
        expect.objectContaining({ status: 'failed', error: expect.stringContaining('EPRIVATEADDRESS') }),
      ]);
      expect(recv.hits()).toBe(before);

      // The same attempt with the loopback opt-in reaches the receiver (so the refusal above is the check's doing).
      const development = createWebhookActivities({
        config: { ...stack.config, allowLoopbackWebhooks: true },
        pool: stack.pool,
        resolve: toLoopback,
      });
      expect(await development.attemptWebhook({ ...attempt, attempt: 2 })).toMatchObject({
        outcome: 'succeeded',
        statusCode: 200,
      });
      expect(recv.hits()).toBe(before + 1);
    } finally {
      await stack.pool.query('UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1', [endpoint.id]);
    }
  });
});

describe('with the loopback opt-in (ALLOW_LOOPBACK_WEBHOOKS=true)', () => {
  let stack: Stack;
  let m: Merchant;
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator();
    stack = await startStack({
      allowLoopbackWebhooks: loadConfig({ ALLOW_LOOPBACK_WEBHOOKS: 'true' }).allowLoopbackWebhooks,
    });
    m = await merchantWith(stack, sim, [simCompany()]);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await sim?.close();
  });

  it('loopback URLs are accepted; private, link-local and the other special-use ones still refused', async () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost:9/x',
      'http://[::1]:9/x',
      'http://[::ffff:127.0.0.1]:9/x',
    ]) {
      const res = await stack.request('POST', '/v1/webhook_endpoints', { key: m.tenant.secret_key, body: { url } });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(201);
    }
    for (const url of [
      'http://10.0.0.1/x',
      'http://169.254.169.254/x',
      'http://[fd00::1]/x',
      'http://[::ffff:192.168.0.1]/x',
      'http://100.64.0.1/x',
    ]) {
      const res = await stack.request('POST', '/v1/webhook_endpoints', { key: m.tenant.secret_key, body: { url } });
      stack.expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors, url).toEqual([expect.objectContaining({ pointer: '/url', code: 'private_address' })]);
    }
  });
});

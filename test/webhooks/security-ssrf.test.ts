// SSRF protection of merchant webhooks (src/webhooks/url.ts): on by default; every special-use address in every
// spelling refused at registration (422, pointer /url) and again at send time after DNS resolution (a name
// re-pointed at the internal network after registration: DNS rebinding); loopback only with the explicit opt-in.
// The address and URL checks themselves, every spelling, are in the unit tier: test/webhooks/url.unit.test.ts.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../activities/webhooks/activities.js';
import { loadConfig } from '../../src/platform/config.js';
import { createEndpoint } from '../../src/webhooks/repository.js';
import { checkWebhookUrl } from '../../src/webhooks/url.js';
import type { Simulator } from '../../simulator/server.js';
import { createDeliveryFor, merchantWith, simCompany, startSimulator, type Merchant } from '../helpers/fixtures.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { REFUSED_URLS, toLoopback, toPublic } from './ssrf-cases.js';

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

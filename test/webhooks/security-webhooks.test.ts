// Merchant webhooks, hardened (issue #27, item 10; design.md third round "Webhook retries"): any answer but 2xx is
// retried on the schedule (410 disables the endpoint), an endpoint failing for 24 h shows `health: "failing"`, one
// failing for 5 days is disabled with reason `failing`, and replays are bounded (one in flight per endpoint, at most
// 10 an hour). The real stack and a real receiver; the 24 h and 5 days are set back in the endpoint row, not waited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { linkCouriers } from '../../src/couriers/service.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  webhookOutcome,
  type Merchant,
} from '../helpers/fixtures.js';
import type { Simulator } from '../../simulator/server.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
let base: Merchant;
let receiver: http.Server;
let receiverUrl = '';
/** Per path: the status codes to answer, in turn (the last one repeats); default 200. */
const answers = new Map<string, number[]>();
const hits = new Map<string, number>();

beforeAll(async () => {
  stack = await startStack({ webhookScheduleMs: [0, 200, 400] });
  sim = await startSimulator();
  base = await merchantWith(stack, sim, [simCompany()]);
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = hits.get(path) ?? 0;
      hits.set(path, n + 1);
      const list = answers.get(path) ?? [200];
      res.writeHead(list[Math.min(n, list.length - 1)]).end();
    });
  });
  receiver.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await stack?.close();
  await sim?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

async function merchant(): Promise<Merchant> {
  const tenant = await stack.tenant();
  await linkCouriers(stack.pool, tenant.tenant_id, base.slug);
  return { tenant, couriers: base.couriers, slug: base.slug };
}
const api = (m: Merchant, method: string, path: string, body?: unknown) =>
  stack.request(method, path, { key: m.tenant.secret_key, body });

async function endpoint(m: Merchant, path: string, statuses: number[]) {
  answers.set(path, statuses);
  const res = await api(m, 'POST', '/v1/webhook_endpoints', {
    url: `${receiverUrl}${path}`,
    events: ['delivery.created'],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

/** A delivery whose `delivery.created` message has been sent to its end (first attempt, then any retries). */
async function createdMessage(m: Merchant) {
  const d = await createDeliveryFor(stack, m);
  // The delivery's workflow records the event and stores its message a moment after the creation answer.
  const deadline = Date.now() + 20_000;
  while (!(await stack.pool.query('SELECT 1 FROM webhook_messages WHERE event_id = $1', [d.events[0].id])).rowCount) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the delivery.created message');
    await new Promise((r) => setTimeout(r, 50));
  }
  const result = await webhookOutcome(stack, d.events[0].id);
  return { messageId: result.messageId!, outcomes: result.outcomes };
}

async function attempts(m: Merchant, endpointId: string, query = '') {
  const res = await api(m, 'GET', `/v1/webhook_endpoints/${endpointId}/attempts?limit=100${query}`);
  expect(res.status).toBe(200);
  return res.body.data as {
    status: string;
    status_code: number | null;
    attempt: number;
    trigger: string;
    message_id: string;
  }[];
}

const getEndpoint = async (m: Merchant, id: string) => (await api(m, 'GET', `/v1/webhook_endpoints/${id}`)).body;

/** Sets the endpoint's failures back in time, as if they had begun `hours` ago. */
const failingFor = (id: string, hours: number) =>
  stack.pool.query('UPDATE webhook_endpoints SET failing_since = now() - make_interval(hours => $2) WHERE id = $1', [
    id,
    hours,
  ]);

/** Waits until every replay workflow the endpoint has started so far has finished. */
async function replaysFinished(endpointId: string) {
  const { rows } = await stack.pool.query<{ ids: string[] }>(
    'SELECT replay_workflow_ids AS ids FROM webhook_endpoints WHERE id = $1',
    [endpointId],
  );
  await Promise.all(rows[0].ids.map((id) => stack.temporal.workflow.getHandle(id).result()));
}

describe('retries: any answer but 2xx', () => {
  it('400, 401, 403, 404, 422 and 3xx are retried on the schedule until a 2xx', async () => {
    const m = await merchant();
    for (const [path, first, second] of [
      ['/bad-request', 400, 401],
      ['/forbidden', 403, 404],
      ['/unprocessable', 422, 301],
    ] as const) {
      const ep = await endpoint(m, path, [first, second, 204]);
      const { outcomes } = await createdMessage(m);
      expect(outcomes[ep.id], path).toBe('succeeded');
      const log = await attempts(m, ep.id);
      expect(log.map((a) => [a.status, a.status_code, a.attempt])).toEqual([
        ['succeeded', 204, 3],
        ['failed', second, 2],
        ['failed', first, 1],
      ]);
      await api(m, 'DELETE', `/v1/webhook_endpoints/${ep.id}`);
    }
  });

  it('a receiver answering 400 for good gets every attempt of the schedule, then an exhausted row', async () => {
    const m = await merchant();
    const ep = await endpoint(m, '/always-400', [400]);
    const { outcomes } = await createdMessage(m);
    expect(outcomes[ep.id]).toBe('exhausted');
    expect((await attempts(m, ep.id)).map((a) => [a.status, a.status_code])).toEqual([
      ['exhausted', null],
      ['failed', 400],
      ['failed', 400],
      ['failed', 400],
    ]);
  });

  it('410 Gone is not retried: it disables the endpoint', async () => {
    const m = await merchant();
    const ep = await endpoint(m, '/gone-for-good', [410]);
    const { outcomes } = await createdMessage(m);
    expect(outcomes[ep.id]).toBe('final');
    expect(await attempts(m, ep.id)).toHaveLength(1);
    expect(await getEndpoint(m, ep.id)).toMatchObject({
      status: 'disabled',
      health: 'disabled',
      disabled_reason: expect.stringMatching(/410/),
    });
  });
});

describe('endpoint health', () => {
  it('healthy while attempts succeed or have failed for less than 24 h; failing after 24 h; a success makes it healthy again', async () => {
    const m = await merchant();
    const ep = await endpoint(m, '/health', [500]);
    const fresh = await getEndpoint(m, ep.id);
    expect(fresh).toMatchObject({ health: 'healthy', failing_since: null });

    const { messageId } = await createdMessage(m);
    const failing = await getEndpoint(m, ep.id);
    // Failing for a few seconds only: still healthy, but the start of the failures is known.
    expect(failing.health).toBe('healthy');
    expect(Date.now() - Date.parse(failing.failing_since)).toBeLessThan(60_000);
    // The failures began with the first failed attempt, and later ones keep that time.
    const first = (
      await stack.pool.query('SELECT min(attempted_at) AS at FROM webhook_attempts WHERE endpoint_id = $1', [ep.id])
    ).rows[0].at as Date;
    expect(failing.failing_since).toBe(first.toISOString());

    await failingFor(ep.id, 25);
    expect(await getEndpoint(m, ep.id)).toMatchObject({ status: 'enabled', health: 'failing' });
    const listed = (await api(m, 'GET', '/v1/webhook_endpoints')).body.data.find((e: { id: string }) => e.id === ep.id);
    expect(listed.health).toBe('failing');

    // The receiver is fixed: a replayed message succeeds and the endpoint is healthy again.
    answers.set('/health', [200]);
    expect((await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { message_id: messageId })).status).toBe(202);
    await replaysFinished(ep.id);
    expect(await getEndpoint(m, ep.id)).toMatchObject({ status: 'enabled', health: 'healthy', failing_since: null });
  });

  it('failing for 5 days: the next failed attempt disables the endpoint with reason `failing` and nothing is retried; enabling starts afresh', async () => {
    const m = await merchant();
    const ep = await endpoint(m, '/five-days', [503]);
    await createdMessage(m);
    // Four days and 23 hours: failing, not disabled yet.
    await failingFor(ep.id, 5 * 24 - 1);
    const second = await createdMessage(m);
    expect(second.outcomes[ep.id]).toBe('exhausted');
    expect(await getEndpoint(m, ep.id)).toMatchObject({ status: 'enabled', health: 'failing' });

    await failingFor(ep.id, 5 * 24 + 1);
    const third = await createdMessage(m);
    expect(third.outcomes[ep.id]).toBe('final');
    expect(await getEndpoint(m, ep.id)).toMatchObject({
      status: 'disabled',
      disabled_reason: 'failing',
      health: 'disabled',
    });
    // One attempt of that message, no retry, no exhausted row.
    expect((await attempts(m, ep.id, `&message_id=${third.messageId}`)).map((a) => [a.status, a.status_code])).toEqual([
      ['failed', 503],
    ]);

    // Re-enabled by the merchant: healthy, its failures forgotten (the next failure does not disable it at once).
    const enabled = await api(m, 'PATCH', `/v1/webhook_endpoints/${ep.id}`, { status: 'enabled' });
    expect(enabled.body).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
      health: 'healthy',
      failing_since: null,
    });
    const fourth = await createdMessage(m);
    expect(fourth.outcomes[ep.id]).toBe('exhausted');
    expect(await getEndpoint(m, ep.id)).toMatchObject({ status: 'enabled', health: 'healthy' });
  });
});

describe('replays are bounded', () => {
  it('one replay in flight per endpoint (409 replay_in_progress), at most 10 an hour (429 rate_limited with Retry-After)', async () => {
    const m = await merchant();
    const ep = await endpoint(m, '/replays', [200]);
    const { messageId } = await createdMessage(m);

    // A receiver that fails, and a long wait before the replay's second attempt: the first replay stays in flight.
    answers.set('/replays', [503]);
    stack.config.webhookScheduleMs = [0, 120_000];
    let inFlight: string[];
    try {
      const both = await Promise.all(
        [1, 2].map(() => api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { message_id: messageId })),
      );
      expect(both.map((r) => r.status).sort()).toEqual([202, 409]);
      stack.expectProblem(
        both.find((r) => r.status === 409)!,
        409,
        'replay_in_progress',
      );
      inFlight = (
        await stack.pool.query('SELECT replay_workflow_ids AS ids FROM webhook_endpoints WHERE id = $1', [ep.id])
      ).rows[0].ids;
      expect(inFlight).toHaveLength(1);
      // Still in flight: a range replay is refused too.
      stack.expectProblem(
        await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, {
          since: new Date(Date.now() - 60_000).toISOString(),
        }),
        409,
        'replay_in_progress',
      );
    } finally {
      stack.config.webhookScheduleMs = [0, 200, 400];
    }
    // Once it has ended, the next replay is accepted.
    await stack.temporal.workflow.getHandle(inFlight[0]).terminate('test: end the replay in flight');
    answers.set('/replays', [200]);

    // Nine more make ten in the hour (each waits for the one before); the eleventh is refused.
    for (let i = 0; i < 9; i++) {
      const res = await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { message_id: messageId });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      await replaysFinished(ep.id);
    }
    const refused = await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { message_id: messageId });
    stack.expectProblem(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.body.detail).toMatch(/10 replays/);

    // An hour later (the oldest start set back), one more is accepted.
    await stack.pool.query(
      `UPDATE webhook_endpoints SET replay_started_at = array(SELECT t - interval '61 minutes' FROM unnest(replay_started_at) t) WHERE id = $1`,
      [ep.id],
    );
    expect((await api(m, 'POST', `/v1/webhook_endpoints/${ep.id}/replay`, { message_id: messageId })).status).toBe(202);
    const replayed = (await attempts(m, ep.id, '&status=succeeded')).filter((a) => a.trigger === 'replay');
    expect(replayed.length).toBeGreaterThanOrEqual(9);
  });
});
